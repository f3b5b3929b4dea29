/// The line a registered cleaner is sent for one call: `{"event":"context","context":N,
/// "cleaner":…,"run":…,"trigger":{"kind":…},"level":…,"dry_run":B,"directory":{"path","size",
/// "used","effective_limit","target","tally":{"allocated","apparent","files","dirs"}}|null,
/// "candidates":[{"path","allocated","apparent","modified_ms","rule"}]}`. The cleanup runner
/// writes it, the Swift client (`RegisteredCleanerConnection`) reads it; paths are relative to
/// ROOT and escaped (``EscapedName``).
package struct RegisteredCleanerContext: Sendable, Hashable, Codable {
    package static let kind = "context"

    /// A directory's totals, as the tree counts them.
    package struct Tally: Sendable, Hashable, Codable {
        package var allocated: UInt64
        package var apparent: UInt64
        package var files: UInt64
        package var dirs: UInt64

        package init(allocated: UInt64, apparent: UInt64, files: UInt64, dirs: UInt64) {
            self.allocated = allocated
            self.apparent = apparent
            self.files = files
            self.dirs = dirs
        }
    }

    /// The breached directory, or the first of its paths that carries a quota.
    package struct Directory: Sendable, Hashable, Codable {
        package var path: String
        package var size: SizeKind
        package var used: UInt64
        package var effectiveLimit: UInt64
        package var target: UInt64
        /// Absent when the tree does not hold the directory.
        package var tally: Tally?

        package init(
            path: String, size: SizeKind, used: UInt64, effectiveLimit: UInt64, target: UInt64, tally: Tally?
        ) {
            self.path = path
            self.size = size
            self.used = used
            self.effectiveLimit = effectiveLimit
            self.target = target
            self.tally = tally
        }

        enum CodingKeys: String, CodingKey {
            case path, size, used, target, tally
            case effectiveLimit = "effective_limit"
        }
    }

    package struct Candidate: Sendable, Hashable, Codable {
        /// Relative to ROOT, escaped (``EscapedName``).
        package var path: String
        package var allocated: UInt64
        package var apparent: UInt64
        package var modifiedMilliseconds: Int64
        package var rule: String

        package init(path: String, allocated: UInt64, apparent: UInt64, modifiedMilliseconds: Int64, rule: String) {
            self.path = path
            self.allocated = allocated
            self.apparent = apparent
            self.modifiedMilliseconds = modifiedMilliseconds
            self.rule = rule
        }

        enum CodingKeys: String, CodingKey {
            case path, allocated, apparent, rule
            case modifiedMilliseconds = "modified_ms"
        }
    }

    /// The number the reply names, so that a late reply is never taken for the next one's.
    package var context: UInt64
    package var cleaner: String
    package var run: String
    package var trigger: ContractTrigger
    package var level: DiskLevel
    package var dryRun: Bool
    package var directory: Directory?
    package var candidates: [Candidate]

    package init(
        context: UInt64, cleaner: String, run: String, trigger: ContractTrigger, level: DiskLevel, dryRun: Bool,
        directory: Directory?, candidates: [Candidate]
    ) {
        self.context = context
        self.cleaner = cleaner
        self.run = run
        self.trigger = trigger
        self.level = level
        self.dryRun = dryRun
        self.directory = directory
        self.candidates = candidates
    }

    private enum CodingKeys: String, CodingKey {
        case event, context, cleaner, run, trigger, level, directory, candidates
        case dryRun = "dry_run"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.kind, forKey: .event)
        try container.encode(context, forKey: .context)
        try container.encode(cleaner, forKey: .cleaner)
        try container.encode(run, forKey: .run)
        try container.encode(trigger, forKey: .trigger)
        try container.encode(level, forKey: .level)
        try container.encode(dryRun, forKey: .dryRun)
        // Null, not absent, when no directory carries a quota: the field is always there.
        try container.encode(directory, forKey: .directory)
        try container.encode(candidates, forKey: .candidates)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try container.expectKind(Self.kind, forKey: .event)
        context = try container.decode(UInt64.self, forKey: .context)
        cleaner = try container.decode(String.self, forKey: .cleaner)
        run = try container.decode(String.self, forKey: .run)
        trigger = try container.decode(ContractTrigger.self, forKey: .trigger)
        level = try container.decode(DiskLevel.self, forKey: .level)
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
        directory = try container.decodeIfPresent(Directory.self, forKey: .directory)
        candidates = try container.decode([Candidate].self, forKey: .candidates)
    }
}

/// A registered cleaner's reply to one context: `{"context":N,"freed":N,"removed":[paths]}`
/// or `{"context":N,"error":"…"}` (`context` optional). The Swift client writes it, the
/// daemon reads it; every field is checked on its own, so each mistake has its own message
/// (``ContractFieldError``).
package struct RegisteredCleanerReplyLine: Sendable, Hashable, Codable {
    /// Every field a reply may have.
    package static let fields = ["context", "error", "freed", "removed"]

    package var context: UInt64?
    package var freed: UInt64?
    /// Relative to ROOT, escaped as the context writes them.
    package var removed: [String]?
    package var error: String?

    package init(context: UInt64?, freed: UInt64? = nil, removed: [String]? = nil, error: String? = nil) {
        self.context = context
        self.freed = freed
        self.removed = removed
        self.error = error
    }

    private enum CodingKeys: String, CodingKey {
        case context, freed, removed, error
    }

    package init(from decoder: any Decoder) throws {
        let names = try decoder.container(keyedBy: ContractKey.self)
        if let unknown = names.allKeys.map(\.stringValue).filter({ !Self.fields.contains($0) }).sorted().first {
            throw ContractFieldError(
                "its reply has an unknown field '\(unknown)'; a reply's fields are "
                    + Self.fields.joined(separator: ", "))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field<Value: Decodable>(_ key: CodingKeys, _ type: Value.Type, _ expected: String) throws -> Value? {
            do {
                return try container.decodeIfPresent(type, forKey: key)
            } catch {
                throw ContractFieldError("its reply's '\(key.stringValue)' must be \(expected)")
            }
        }
        freed = try field(.freed, UInt64.self, "a whole number of bytes, 0 or more")
        removed = try field(.removed, [String].self, "an array of paths (strings)")
        error = try field(.error, String.self, "a string")
        context = try field(.context, UInt64.self, "the number of the context it answers")
    }
}
