import QuotaWatchCore
import QuotaWatchPolicy

/// What the engine hands over for `status --quotas`: the book's rows with raw paths, and the
/// last disk reading. The connection's thread escapes and encodes it.
struct QuotaSnapshot: ControlReplyDocument {
    var root: String
    var level: DiskLevel
    var reading: LevelPolicy.Reading?
    var rootAllocated: UInt64
    var rows: [QuotaBook<DirectoryID>.Row]

    var status: QuotaStatus {
        QuotaStatus(
            root: root,
            level: QuotaStatus.Level(
                level: level, free: reading?.free, total: reading?.total, rootAllocated: rootAllocated),
            quotas: rows.map(Self.statusRow))
    }

    /// One row as `status --quotas` and `/metrics` show it: the path escaped, the times in
    /// seconds.
    static func statusRow(_ row: QuotaBook<DirectoryID>.Row) -> QuotaStatus.Row {
        QuotaStatus.Row(
            path: EscapedName.string(row.path), rule: row.rule, size: row.size, used: row.used, limit: row.limit,
            effectiveLimit: row.effectiveLimit, state: row.state,
            secondsSinceChange: row.sinceLastChange.map {
                Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
            },
            bytesPerSecond: row.bytesPerSecond, secondsToBreach: row.secondsToBreach)
    }

    func replyJSON() -> [UInt8] { status.encodedJSON() }
}

extension PolicyMonitor {
    /// The rows of `status --quotas`, as of the last evaluation.
    func snapshot(root: String, tree: TallyTree, now: UInt64) -> QuotaSnapshot {
        QuotaSnapshot(
            root: root, level: level.level, reading: lastReading,
            rootAllocated: tree.tally(of: tree.root).usage.allocated,
            rows: book.rows(level: level.level, at: Self.moment(now)))
    }
}
