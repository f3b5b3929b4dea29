import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// A crawl's progress on one rewritten stderr line, only on a terminal, at most ten times a
/// second: a ``TransientLine``, which every other write to the terminal clears first.
final class ProgressLine {
    private let enabled: Bool
    private var lastDraw = Date.distantPast

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: CrawlProgress) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        TransientLine.draw(
            HumanText.forOutput(
                "scanning: \(progress.directories) dirs, \(progress.files) entries, "
                    + ByteFormat.decimal.string(progress.allocatedBytes)))
    }

    func clear() { TransientLine.clear() }
}
