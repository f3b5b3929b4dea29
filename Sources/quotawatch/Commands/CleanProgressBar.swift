import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import Synchronization

/// `clean --yes` through a daemon, on a terminal: a bar on stderr of how far the daemon's
/// deletion has got, drawn from its `cleanup_progress` events on a second connection to the
/// socket (the daemon queues them per subscriber and drops for one too slow, so a slow
/// terminal never holds it up). Never with --json, never when stdout or stderr is not a
/// terminal; cleared before the report is printed.
final class CleanProgressBar: Sendable {
    private let stream: ControlEventStream
    private let reader: JoinableThread
    private let state = BarState()

    /// Whether a bar is on the line, and whether ``finish()`` ran; the reader thread draws.
    private final class BarState: Sendable {
        let drawn = Mutex(false)
        let finished = Mutex(false)
    }

    /// Subscribes before the deletion is asked for, so no progress is missed; nil when the
    /// bar is not wanted or the daemon does not stream events (the deletion goes on without it).
    static func start(socket: [UInt8], total: Int, format: ByteFormat, enabled: Bool) -> CleanProgressBar? {
        guard enabled, total > 0, let stream = try? ControlEventStream(socketPath: socket, timeout: .seconds(5)) else {
            return nil
        }
        return CleanProgressBar(stream: stream, total: total, format: format)
    }

    private init(stream: ControlEventStream, total: Int, format: ByteFormat) {
        self.stream = stream
        let state = state
        reader = JoinableThread(name: "clean-progress") {
            var lastDraw = ContinuousClock.now - .seconds(1)
            while let line = stream.nextLine() {
                guard let progress = Progress(line), ContinuousClock.now - lastDraw >= .milliseconds(100) else {
                    continue
                }
                lastDraw = ContinuousClock.now
                state.drawn.withLock { drawn in
                    // A transient line: whatever else is written clears it first.
                    TransientLine.draw(Self.text(progress, total: total, format: format, width: 30))
                    drawn = true
                }
            }
        }
    }

    /// Stops reading and clears the bar; once (later calls return at once).
    func finish() {
        guard
            state.finished.withLock({ finished in
                defer { finished = true }
                return !finished
            })
        else { return }
        stream.close()
        reader.join()
        stream.release()
        state.drawn.withLock { drawn in
            if drawn { TransientLine.clear() }
            drawn = false
        }
    }

    /// What one `cleanup_progress` event of a selection says (the `clean` cleaner's).
    struct Progress: Equatable {
        var removed: Int
        var answered: Int
        var freedBytes: UInt64
        var dryRun: Bool

        init(removed: Int, answered: Int, freedBytes: UInt64, dryRun: Bool) {
            self.removed = removed
            self.answered = answered
            self.freedBytes = freedBytes
            self.dryRun = dryRun
        }

        init?(_ line: [UInt8]) {
            guard ContractLineHead.read(line)?.event == CleanupProgressEvent.kind,
                let event = try? ContractJSON.decode(CleanupProgressEvent.self, from: line),
                event.cleaner == ManualClean.cleanerName
            else { return nil }
            self.init(removed: event.removed, answered: event.answered, freedBytes: event.freed, dryRun: event.dryRun)
        }
    }

    /// `deleting [#########.....................]  12000/60000 files, 49.2 MB freed`: the bar
    /// fills with the names answered (removed or kept) out of those selected.
    static func text(_ progress: Progress, total: Int, format: ByteFormat, width: Int) -> String {
        let answered = min(max(progress.answered, 0), total)
        let filled = total > 0 ? answered * width / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let verb = progress.dryRun ? "checking" : "deleting"
        let freed = progress.dryRun ? "would free" : "freed"
        return "\(verb) [\(bar)] \(answered)/\(total) files, \(format.string(progress.freedBytes)) \(freed)"
    }
}
