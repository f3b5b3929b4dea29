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
    /// `degraded`, `root_gone`, `config_error`: the text shown to people.
    public let message: String?
    /// Policy events of one directory (`quota_*`, `leftover`): its path relative to the root.
    public let path: String?
    /// `quota_*`: the directory's allocated bytes (a rule counting allocated size).
    public let allocated: UInt64?
    /// `quota_*`: the limit in force, scaled by the disk level.
    public let effectiveLimit: UInt64?
    /// `quota_*`: the disk level the limit was scaled for.
    public let level: String?
    /// `level`: the levels before and after, and the free space read.
    public let from: String?
    public let to: String?
    public let free: UInt64?
    /// Every line: the daemon's ROOT, absolute, escaped as paths are.
    public let root: String?

    private struct Fields: Decodable {
        let event: String
        let dirs: Int?
        let files: Int?
        let paths: [String]?
        let watches_needed: Int?
        let message: String?
        let path: String?
        let allocated: UInt64?
        let effective_limit: UInt64?
        let level: String?
        let from: String?
        let to: String?
        let free: UInt64?
        let root: String?
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
        path = fields.path
        allocated = fields.allocated
        effectiveLimit = fields.effective_limit
        level = fields.level
        from = fields.from
        to = fields.to
        free = fields.free
        root = fields.root
    }

    public var description: String { text }
}
