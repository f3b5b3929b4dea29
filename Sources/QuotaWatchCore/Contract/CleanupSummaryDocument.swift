/// The `cleanup` event as a client reads it: the reply to `{"command":"clean"}` (`clean-now`)
/// and the line on `events`. The engine writes it from its ``PolicyJSON`` fields
/// (`CleanupSummary.fields`); this is the reading side, so a client never picks a summary
/// apart by hand. Fields a newer daemon adds are ignored.
public struct CleanupSummaryDocument: Decodable, Sendable, Equatable {
    public struct Cleaner: Decodable, Sendable, Equatable {
        public var name: String
        public var removed: UInt64
        public var freed: UInt64
        public var error: String?
        /// What it removed (in a dry run, would remove), escaped as paths are.
        public var paths: [String]
        /// What it chose but kept, by reason.
        public var skipped: [String: Skipped]
    }

    /// The names kept for one reason: how many, and the first few (escaped as paths are).
    public struct Skipped: Decodable, Sendable, Equatable {
        public var count: UInt64
        public var examples: [String]
    }

    public var run: String
    /// The first trigger's kind.
    public var trigger: String
    public var removed: UInt64
    public var freed: UInt64
    public var seconds: Double
    public var dryRun: Bool
    public var cleaners: [Cleaner]

    enum CodingKeys: String, CodingKey {
        case run, trigger, removed, freed, seconds, cleaners
        case dryRun = "dry_run"
    }

    /// Reads a summary; throws when the reply is not one.
    public static func decode(_ bytes: [UInt8]) throws -> CleanupSummaryDocument {
        try ContractJSON.decode(CleanupSummaryDocument.self, from: bytes)
    }
}
