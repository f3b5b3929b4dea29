import Foundation
import QuotaWatchCore
import QuotaWatchEngine

/// A crawl's progress on one rewritten stderr line, only on a terminal, at most ten times a second.
final class ProgressLine {
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: CrawlProgress) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        drawn = true
        Console.terminalControl("\r\u{1b}[K")
        Console.error(
            "scanning: \(progress.directories) dirs, \(progress.files) entries, "
                + ByteFormat.decimal.string(progress.allocatedBytes))
    }

    func clear() {
        if drawn { Console.terminalControl("\r\u{1b}[K") }
        drawn = false
    }
}
