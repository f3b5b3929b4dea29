import Foundation

/// One line of `quotawatch run --events jsonl`: a JSON object whose `"event"` names it
/// (`ready`, `overflow`, `resynced`, `degraded`, `root_gone`), with that event's fields.
public struct EngineEventLine: Sendable, CustomStringConvertible {
    /// The line as the daemon wrote it, without its newline.
    public let text: String
    public let event: String
    /// `ready`, `resynced`: directories listed.
    public let dirs: Int?
    /// `ready`: files counted.
    public let files: Int?
    /// `degraded`: the topmost subtrees without a watch.
    public let paths: [String]?
    /// `degraded`: the watches the root needs.
    public let watchesNeeded: Int?
    /// `degraded`, `root_gone`: the text shown to people.
    public let message: String?

    private struct Fields: Decodable {
        let event: String
        let dirs: Int?
        let files: Int?
        let paths: [String]?
        let watches_needed: Int?
        let message: String?
    }

    /// Decodes one line; nil when it is not a JSON object with an `"event"` string.
    public init?(_ line: [UInt8]) {
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(line)) else { return nil }
        text = String(decoding: line, as: UTF8.self)
        event = fields.event
        dirs = fields.dirs
        files = fields.files
        paths = fields.paths
        watchesNeeded = fields.watches_needed
        message = fields.message
    }

    public var description: String { text }
}
