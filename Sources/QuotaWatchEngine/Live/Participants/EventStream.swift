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
    /// ROOT, absolute and escaped as paths are, as in every event line (``PolicyEvent/contract(root:)``).
    /// Each kind is a shape of the contract: ``ContractEvent``, ``CleanupSummaryDocument``,
    /// ``CleanupProgressEvent``.
    ///
    /// `dated`, when given, dates a line whose event carries no time of its own (`ready`,
    /// `overflow`, …): the line remembered for a view that attaches later, which can no longer
    /// date it by its arrival.
    package func jsonLine(root: String, time dated: String? = nil) -> String {
        let payload: ContractEvent.Payload
        var time: String?
        switch self {
        case .ready(let directories, let files, let allocated, let seconds, let backend, let reason):
            payload = .ready(
                directories: Int64(directories), files: Int64(files), allocated: allocated,
                seconds: ContractNumber(seconds), backend: backend, backendReason: reason)
        case .overflow:
            payload = .overflow
        case .resynced(let directories, let seconds):
            payload = .resynced(directories: Int64(directories), seconds: ContractNumber(seconds))
        case .degraded(let paths, let needed, let limit, let message):
            payload = .degraded(
                paths: paths, watchesNeeded: Int64(needed), maxUserWatches: Int64(limit), message: message)
        case .rootGone(let message):
            payload = .rootGone(message: message)
        case .configError(let message, let when):
            payload = .configError(message: message)
            time = when
        case .configReloaded(let quotas, let budgets, let when):
            payload = .configReloaded(quotas: Int64(quotas), budgets: Int64(budgets))
            time = when
        case .cleanup(let summary):
            return ContractJSON.encodedString(summary.document(root: root))
        case .cleanupProgress(let report):
            return ContractJSON.encodedString(report.event(root: root))
        }
        return ContractJSON.encodedString(ContractEvent(payload, root: root, time: time ?? dated))
    }

    /// Whether the event's line has a `time` field of its own.
    var isDated: Bool {
        switch self {
        case .configError, .configReloaded, .cleanup: true
        case .ready, .overflow, .resynced, .degraded, .rootGone, .cleanupProgress: false
        }
    }
}

extension ObservedEvent {
    /// The line the control socket's feed remembers for a view that attaches later, given the
    /// line sent now: nil for a cleanup's progress (over, or soon reported again, by then); the
    /// line dated `time` when the event carries no time of its own.
    func rememberedLine(_ line: String, root: String, time: () -> WallTime) -> String? {
        switch self {
        case .policy: line
        case .engine(.cleanupProgress): nil
        case .engine(let event): event.isDated ? line : event.jsonLine(root: root, time: time().iso8601)
        }
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
        thread = JoinableThread(name: "event-writer", inheritsSubject: false) { [lines] in
            Self.run(lines, descriptor: descriptor)
        }
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
