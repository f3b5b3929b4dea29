import Foundation
import QuotaWatchCore
import QuotaWatchSystem

/// Engine events for scripts: one JSON object per line, each with an `"event"` field.
public enum EngineEvent: Sendable {
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
    /// A cleanup run ended: its summary (``CleanupSummary/jsonLine``).
    case cleanup(CleanupSummary)

    /// The JSON line, without its newline. Keys are sorted, so each line is stable.
    public var jsonLine: String {
        var fields: [String: JSONValue] = [:]
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
            return summary.jsonLine
        }
        return JSONValue.object(fields).encoded
    }
}

/// A small JSON value for event lines, encoded with Foundation's encoder.
public enum JSONValue: Encodable, Sendable {
    case string(String)
    case integer(Int64)
    /// Sizes: a total may pass Int64.max (sparse files), and converting it must not trap.
    case unsigned(UInt64)
    case number(Double)
    case array([JSONValue])
    case object([String: JSONValue])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .number(let value): try container.encode((value * 1000).rounded() / 1000)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Writes lines to a descriptor from its own thread, so a slow reader of stdout never
/// stalls the engine.
final class LineWriter: @unchecked Sendable {
    // `queue` and `writing` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var queue: [String] = []
    private var writing = false
    private var isStopping = false
    private let descriptor: FileDescriptor
    private var thread: JoinableThread?

    init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
        thread = JoinableThread(name: "event-writer") { [self] in run() }
    }

    func write(_ line: String) {
        condition.lock()
        queue.append(HumanText.jsonForTerminal(line) + "\n")
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until everything queued so far has been written (at exit).
    func drain() {
        condition.lock()
        while !queue.isEmpty || writing { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, then ends the thread and waits for it.
    func stop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        condition.unlock()
        thread?.join()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !isStopping { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let batch = queue.joined()
            queue.removeAll(keepingCapacity: true)
            writing = true
            condition.unlock()
            try? descriptor.writeAll(batch.utf8)
            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
