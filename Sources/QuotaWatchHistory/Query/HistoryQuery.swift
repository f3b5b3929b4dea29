import QuotaWatchCore
import QuotaWatchPolicy

/// What `history` asks for: a time window, event kinds and a path glob.
package struct HistoryFilter: Sendable {
    package var since: WallTime?
    package var until: WallTime?
    /// Empty: every kind.
    package var kinds: [String] = []
    /// Matched against the event's path (relative to ROOT, escaped as in the JSON); events
    /// without a path are left out when it is set.
    package var path: PathGlob?

    package init(since: WallTime? = nil, until: WallTime? = nil, kinds: [String] = [], path: PathGlob? = nil) {
        self.since = since
        self.until = until
        self.kinds = kinds
        self.path = path
    }

    /// Whether an event's path passes the glob (the part SQL cannot do: `*` stops at `/`).
    package func admits(path eventPath: String?) -> Bool {
        guard let path else { return true }
        guard let eventPath, let bytes = EscapedName.bytes(eventPath) else { return false }
        return path.matches(bytes)
    }
}

/// The SQL of `history`'s reads, with its parameters. Pure, so the tests can check it.
package enum HistoryQuery {
    /// Every event kind the history holds: the engine's and the policy layer's events, each
    /// deletion imported from the audit log, and the recorder's own reports.
    package static let kinds: [String] =
        [
            "ready", "overflow", "resynced", "degraded", "root_gone", "config_error", "config_reloaded", "cleanup",
            dryRunCleanupKind,
        ] + PolicyEvent.kinds + ["deletion", "history_dropped", "history_reset"]

    /// The kind of a `cleanup` event whose `dry_run` is true: what a run would have removed.
    package static let dryRunCleanupKind = "cleanup_dry_run"

    /// Events in the filter's window and kinds, oldest first.
    package static func events(_ filter: HistoryFilter) -> (sql: String, parameters: [SQLiteStatement.Value]) {
        var conditions: [String] = []
        var parameters: [SQLiteStatement.Value] = []
        if let since = filter.since {
            conditions.append("time_ms >= ?")
            parameters.append(.integer(since.millisecondsSinceEpoch))
        }
        if let until = filter.until {
            conditions.append("time_ms <= ?")
            parameters.append(.integer(until.millisecondsSinceEpoch))
        }
        if !filter.kinds.isEmpty {
            conditions.append("kind IN (" + filter.kinds.map { _ in "?" }.joined(separator: ", ") + ")")
            parameters += filter.kinds.map { .text($0) }
        }
        if filter.path != nil { conditions.append("path IS NOT NULL") }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return ("SELECT time_ms, kind, path, line FROM events\(whereClause) ORDER BY time_ms, id", parameters)
    }

    /// One directory's samples in the window, oldest first.
    package static func samples(
        path: String, since: WallTime?, until: WallTime?
    ) -> (sql: String, parameters: [SQLiteStatement.Value]) {
        var sql = "SELECT time_ms, allocated, apparent, reason FROM samples WHERE path = ?"
        var parameters: [SQLiteStatement.Value] = [.text(path)]
        if let since {
            sql += " AND time_ms >= ?"
            parameters.append(.integer(since.millisecondsSinceEpoch))
        }
        if let until {
            sql += " AND time_ms <= ?"
            parameters.append(.integer(until.millisecondsSinceEpoch))
        }
        return (sql + " ORDER BY time_ms, id", parameters)
    }

    /// The closest known kind to `unknown`, for "did you mean".
    package static func suggestion(for unknown: String) -> String? {
        let lowered = unknown.lowercased()
        if let contained = kinds.first(where: { $0.contains(lowered) || lowered.contains($0) }) { return contained }
        return Spelling.suggestion(for: lowered, among: kinds)
    }
}
