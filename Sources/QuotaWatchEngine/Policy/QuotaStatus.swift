import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

/// `status --quotas --json`, which is also the control socket's reply to
/// `{"command":"status","select":"quotas"}`:
///
///     {"root":"/abs","level":{"level":"normal","free":N,"total":N,"root_allocated":N},
///      "quotas":[{"path":"Library/Caches/Feed","rule":"Library/Caches/*","size":"allocated",
///                 "used":N,"limit":N,"effective_limit":N,"state":"warning",
///                 "seconds_since_change":1.5,"bytes_per_second":2048,"seconds_to_breach":600}]}
///
/// One row per (directory, rule); `free` and `total` are null until free space could be read,
/// `used`, `seconds_since_change` and `seconds_to_breach` null when not known.
public struct QuotaStatus: Codable, Sendable, Equatable {
    public struct Level: Codable, Sendable, Equatable {
        public var level: String
        public var free: UInt64?
        public var total: UInt64?
        public var rootAllocated: UInt64

        enum CodingKeys: String, CodingKey {
            case level, free, total
            case rootAllocated = "root_allocated"
        }
    }

    public struct Row: Codable, Sendable, Equatable {
        public var path: String
        public var rule: String
        /// Which size the rule counts: "allocated" or "apparent".
        public var size: String
        public var used: UInt64?
        public var limit: UInt64
        public var effectiveLimit: UInt64
        /// "ok", "warning" or "breach".
        public var state: String
        public var secondsSinceChange: Double?
        public var bytesPerSecond: Double
        public var secondsToBreach: Double?

        enum CodingKeys: String, CodingKey {
            case path, rule, size, used, limit, state
            case effectiveLimit = "effective_limit"
            case secondsSinceChange = "seconds_since_change"
            case bytesPerSecond = "bytes_per_second"
            case secondsToBreach = "seconds_to_breach"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(rule, forKey: .rule)
            try container.encode(size, forKey: .size)
            try container.encode(used, forKey: .used)
            try container.encode(limit, forKey: .limit)
            try container.encode(effectiveLimit, forKey: .effectiveLimit)
            try container.encode(state, forKey: .state)
            try container.encode(secondsSinceChange.map(Self.rounded), forKey: .secondsSinceChange)
            try container.encode(Self.rounded(bytesPerSecond), forKey: .bytesPerSecond)
            try container.encode(secondsToBreach.map(Self.rounded), forKey: .secondsToBreach)
        }

        static func rounded(_ value: Double) -> Double { value.isFinite ? (value * 1000).rounded() / 1000 : 0 }
    }

    public var root: String
    public var level: Level
    public var quotas: [Row]

    public func encodedJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data())
    }

    /// Reads a reply; throws when it is not a quota status.
    public static func decode(_ bytes: [UInt8]) throws -> QuotaStatus {
        try JSONDecoder().decode(QuotaStatus.self, from: Data(bytes))
    }
}

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
                level: level.rawValue, free: reading?.free, total: reading?.total, rootAllocated: rootAllocated),
            quotas: rows.map { row in
                QuotaStatus.Row(
                    path: EscapedName.string(row.path), rule: row.rule, size: row.size.rawValue, used: row.used,
                    limit: row.limit, effectiveLimit: row.effectiveLimit, state: row.state.rawValue,
                    secondsSinceChange: row.sinceLastChange.map {
                        Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
                    },
                    bytesPerSecond: row.bytesPerSecond, secondsToBreach: row.secondsToBreach)
            })
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
