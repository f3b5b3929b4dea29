import QuotaWatchPolicy

/// One directory's sizes at one moment.
package struct HistorySample: Sendable, Equatable {
    package var time: WallTime
    /// Relative to ROOT, escaped as in the JSON; "." for ROOT.
    package var path: String
    package var allocated: UInt64
    package var apparent: UInt64
    /// Why it was taken: `periodic`, `breach` or `ready`.
    package var reason: String

    package init(time: WallTime, path: String, allocated: UInt64, apparent: UInt64, reason: String) {
        self.time = time
        self.path = path
        self.allocated = allocated
        self.apparent = apparent
        self.reason = reason
    }
}

/// An event as the history holds it: its time, kind and path apart for the queries, and the
/// JSON object as `--events jsonl` printed it.
package struct HistoryEvent: Sendable, Equatable {
    package var time: WallTime
    package var kind: String
    package var path: String?
    package var line: String

    package init(time: WallTime, kind: String, path: String?, line: String) {
        self.time = time
        self.kind = kind
        self.path = path
        self.line = line
    }
}

/// What the writer thread appends.
package enum HistoryRecord: Sendable, Equatable {
    case event(HistoryEvent)
    case sample(HistorySample)
}
