import Foundation

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
package struct QuotaStatus: Codable, Sendable, Equatable {
    package struct Level: Codable, Sendable, Equatable {
        package var level: DiskLevel
        package var free: UInt64?
        package var total: UInt64?
        package var rootAllocated: UInt64

        enum CodingKeys: String, CodingKey {
            case level, free, total
            case rootAllocated = "root_allocated"
        }

        package init(level: DiskLevel, free: UInt64?, total: UInt64?, rootAllocated: UInt64) {
            self.level = level
            self.free = free
            self.total = total
            self.rootAllocated = rootAllocated
        }
    }

    package struct Row: Codable, Sendable, Equatable {
        package var path: String
        package var rule: String
        /// Which size the rule counts.
        package var size: SizeKind
        package var used: UInt64?
        package var limit: UInt64
        package var effectiveLimit: UInt64
        package var state: QuotaState
        package var secondsSinceChange: Double?
        package var bytesPerSecond: Double
        package var secondsToBreach: Double?

        enum CodingKeys: String, CodingKey {
            case path, rule, size, used, limit, state
            case effectiveLimit = "effective_limit"
            case secondsSinceChange = "seconds_since_change"
            case bytesPerSecond = "bytes_per_second"
            case secondsToBreach = "seconds_to_breach"
        }

        package init(
            path: String, rule: String, size: SizeKind, used: UInt64?, limit: UInt64, effectiveLimit: UInt64,
            state: QuotaState, secondsSinceChange: Double?, bytesPerSecond: Double, secondsToBreach: Double?
        ) {
            self.path = path
            self.rule = rule
            self.size = size
            self.used = used
            self.limit = limit
            self.effectiveLimit = effectiveLimit
            self.state = state
            self.secondsSinceChange = secondsSinceChange
            self.bytesPerSecond = bytesPerSecond
            self.secondsToBreach = secondsToBreach
        }

        package func encode(to encoder: any Encoder) throws {
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

    package var root: String
    package var level: Level
    package var quotas: [Row]

    package init(root: String, level: Level, quotas: [Row]) {
        self.root = root
        self.level = level
        self.quotas = quotas
    }

    package func encodedJSON() -> [UInt8] { ContractJSON.encode(self) }

    /// Reads a reply; throws when it is not a quota status.
    package static func decode(_ bytes: [UInt8]) throws -> QuotaStatus {
        try ContractJSON.decode(QuotaStatus.self, from: bytes)
    }
}
