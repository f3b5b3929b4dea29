import QuotaWatchPolicy

/// One directory's sizes at one moment.
public struct HistorySample: Sendable, Equatable {
    public var time: WallTime
    /// Relative to ROOT, escaped as in the JSON; "." for ROOT.
    public var path: String
    public var allocated: UInt64
    public var apparent: UInt64
    /// Why it was taken: `periodic`, `breach` or `ready`.
    public var reason: String

    public init(time: WallTime, path: String, allocated: UInt64, apparent: UInt64, reason: String) {
        self.time = time
        self.path = path
        self.allocated = allocated
        self.apparent = apparent
        self.reason = reason
    }
}

/// An event as the history holds it: its time, kind and path apart for the queries, and the
/// JSON object as `--events jsonl` printed it.
public struct HistoryEvent: Sendable, Equatable {
    public var time: WallTime
    public var kind: String
    public var path: String?
    public var line: String

    public init(time: WallTime, kind: String, path: String?, line: String) {
        self.time = time
        self.kind = kind
        self.path = path
        self.line = line
    }
}

/// What the writer thread appends.
public enum HistoryRecord: Sendable, Equatable {
    case event(HistoryEvent)
    case sample(HistorySample)
}
