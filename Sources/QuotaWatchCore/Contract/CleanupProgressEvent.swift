/// `{"event":"cleanup_progress","run":…,"trigger":…,"cleaner":…,"removed":N,"freed":N,
/// "answered":N,"seconds":S,"dry_run":B,"root":…}`: how far one cleaner of a run going on has
/// got. The engine writes it (`CleanupProgressReport`); `watch` and `clean`'s bar read it.
package struct CleanupProgressEvent: Sendable, Hashable, Codable {
    package static let kind = "cleanup_progress"

    /// The daemon's ROOT, as every event line carries it; nil from a feed that serves none.
    package var root: String?
    package var run: String
    /// The run's first trigger's kind.
    package var trigger: String
    package var cleaner: String
    /// Removals so far that removed their name.
    package var removed: Int
    /// Allocated bytes the file system got back so far.
    package var freed: UInt64
    /// Removals answered so far, removed or not.
    package var answered: Int
    /// Since the cleaner was called.
    package var seconds: ContractNumber
    package var dryRun: Bool

    package init(
        root: String?, run: String, trigger: String, cleaner: String, removed: Int, freed: UInt64, answered: Int,
        seconds: Double, dryRun: Bool
    ) {
        self.root = root
        self.run = run
        self.trigger = trigger
        self.cleaner = cleaner
        self.removed = removed
        self.freed = freed
        self.answered = answered
        self.seconds = ContractNumber(seconds)
        self.dryRun = dryRun
    }

    private enum CodingKeys: String, CodingKey {
        case event, root, run, trigger, cleaner, removed, freed, answered, seconds
        case dryRun = "dry_run"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.kind, forKey: .event)
        try container.encodeIfPresent(root, forKey: .root)
        try container.encode(run, forKey: .run)
        try container.encode(trigger, forKey: .trigger)
        try container.encode(cleaner, forKey: .cleaner)
        try container.encode(removed, forKey: .removed)
        try container.encode(freed, forKey: .freed)
        try container.encode(answered, forKey: .answered)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(dryRun, forKey: .dryRun)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try container.expectKind(Self.kind, forKey: .event)
        root = try container.decodeIfPresent(String.self, forKey: .root)
        run = try container.decode(String.self, forKey: .run)
        trigger = try container.decode(String.self, forKey: .trigger)
        cleaner = try container.decode(String.self, forKey: .cleaner)
        removed = try container.decode(Int.self, forKey: .removed)
        freed = try container.decode(UInt64.self, forKey: .freed)
        answered = try container.decode(Int.self, forKey: .answered)
        seconds = try container.decode(ContractNumber.self, forKey: .seconds)
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
    }
}
