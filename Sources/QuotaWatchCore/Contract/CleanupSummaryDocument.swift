/// The `cleanup` event as a client reads it: the reply to `{"command":"clean"}` (`clean-now`)
/// and the line on `events`. The engine writes it from its ``PolicyJSON`` fields
/// (`CleanupSummary.fields`); this is the reading side, so a client never picks a summary
/// apart by hand. Fields a newer daemon adds are ignored.
package struct CleanupSummaryDocument: Decodable, Sendable, Equatable {
    package struct Cleaner: Decodable, Sendable, Equatable {
        package var name: String
        package var removed: UInt64
        package var freed: UInt64
        package var error: String?
        /// What it removed (in a dry run, would remove), escaped as paths are.
        package var paths: [String]
        /// What it chose but kept, by reason.
        package var skipped: [String: Skipped]
    }

    /// The names kept for one reason: how many, and the first few (escaped as paths are).
    package struct Skipped: Decodable, Sendable, Equatable {
        package var count: UInt64
        package var examples: [String]
    }

    package var run: String
    /// The first trigger's kind.
    package var trigger: String
    package var removed: UInt64
    package var freed: UInt64
    package var seconds: Double
    package var dryRun: Bool
    package var cleaners: [Cleaner]

    enum CodingKeys: String, CodingKey {
        case run, trigger, removed, freed, seconds, cleaners
        case dryRun = "dry_run"
    }

    /// Reads a summary; throws when the reply is not one.
    package static func decode(_ bytes: [UInt8]) throws -> CleanupSummaryDocument {
        try ContractJSON.decode(CleanupSummaryDocument.self, from: bytes)
    }
}
