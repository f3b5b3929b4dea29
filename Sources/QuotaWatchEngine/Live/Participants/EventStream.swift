import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Engine events for scripts: one JSON object per line, each with an `"event"` field.
package enum EngineEvent: Sendable {
    /// `backend` is "inotify" or "fanotify", `backendReason` why (``SelectedBackend``).
    case ready(directories: Int, files: Int, allocated: UInt64, seconds: Double, backend: String, backendReason: String)
    case overflow
    case resynced(directories: Int, seconds: Double)
    case degraded(paths: [String], watchesNeeded: Int, maxUserWatches: Int, message: String)
    case rootGone(message: String)
    /// SIGHUP found a bad config; the rules in force stay.
    case configError(message: String, time: String)
    /// SIGHUP put a new config in force.
    case configReloaded(quotas: Int, budgets: Int, time: String)
    /// A cleanup run ended: its summary (``CleanupSummary/document(root:)``).
    case cleanup(CleanupSummary)
    /// A cleaner of a run going on has got this far (``CleanupProgressReport/event(root:)``).
    case cleanupProgress(CleanupProgressReport)

    /// The JSON line, without its newline. Keys are sorted, so each line is stable; `root` is
    /// ROOT, absolute and escaped as paths are, as in every event line (``PolicyEvent/fields(root:)``).
    /// One encoder, ``PolicyJSON``, writes every event line, so a root or path is written the
    /// same way in all of them.
    package func jsonLine(root: String) -> String {
        var fields: [String: PolicyJSON]
        switch self {
        case .ready(let directories, let files, let allocated, let seconds, let backend, let reason):
            fields = [
                "event": .string("ready"), "dirs": .integer(Int64(directories)), "files": .integer(Int64(files)),
                "allocated": .unsigned(allocated), "seconds": .number(seconds), "backend": .string(backend),
                "backend_reason": .string(reason),
            ]
        case .overflow:
            fields = ["event": .string("overflow")]
        case .resynced(let directories, let seconds):
            fields = ["event": .string("resynced"), "dirs": .integer(Int64(directories)), "seconds": .number(seconds)]
        case .degraded(let paths, let needed, let limit, let message):
            fields = [
                "event": .string("degraded"), "paths": .array(paths.map { .string($0) }),
                "watches_needed": .integer(Int64(needed)), "max_user_watches": .integer(Int64(limit)),
                "message": .string(message),
            ]
        case .rootGone(let message):
            fields = ["event": .string("root_gone"), "message": .string(message)]
        case .configError(let message, let time):
            fields = ["event": .string("config_error"), "message": .string(message), "time": .string(time)]
        case .configReloaded(let quotas, let budgets, let time):
            fields = [
                "event": .string("config_reloaded"), "quotas": .integer(Int64(quotas)),
                "budgets": .integer(Int64(budgets)), "time": .string(time),
            ]
        case .cleanup(let summary):
            return ContractJSON.encodedString(summary.document(root: root))
        case .cleanupProgress(let report):
            return ContractJSON.encodedString(report.event(root: root))
        }
        fields["root"] = .string(root)
        return PolicyJSON.object(fields).encoded
    }
}

/// Writes lines to a descriptor from its own thread, so a slow reader of stdout never
/// stalls the engine.
final class LineWriter: Sendable {
    private struct Lines {
        var queue: [String] = []
        var writing = false
        var isStopping = false
    }

    private let lines = BlockingState(Lines())
    private let thread: JoinableThread

    init(descriptor: FileDescriptor) {
        thread = JoinableThread(name: "event-writer") { [lines] in Self.run(lines, descriptor: descriptor) }
    }

    func write(_ line: String) {
        let text = HumanText.jsonForTerminal(line) + "\n"
        lines.withLockWakingWaiters { $0.queue.append(text) }
    }

    /// Waits until everything queued so far has been written (at exit).
    func drain() {
        lines.waitUntil { $0.queue.isEmpty && !$0.writing }
    }

    /// Writes what is queued, then ends the thread and waits for it.
    func stop() {
        lines.withLockWakingWaiters { $0.isStopping = true }
        thread.join()
    }

    private static func run(_ lines: BlockingState<Lines>, descriptor: FileDescriptor) {
        while true {
            // nil: nothing yet, wait; .some(nil): stopping with nothing left.
            let batch = lines.wait { lines -> String?? in
                if lines.queue.isEmpty { return lines.isStopping ? .some(nil) : nil }
                let batch = lines.queue.joined()
                lines.queue.removeAll(keepingCapacity: true)
                lines.writing = true
                return batch
            }
            guard let batch = batch ?? nil else { return }
            try? descriptor.writeAll(batch.utf8)
            lines.withLockWakingWaiters { $0.writing = false }
        }
    }
}
