/// The `cleanup` event: a run's summary, as the engine writes it (`CleanupSummary.document`)
/// on the event stream and as the reply to `{"command":"clean"}` (`clean-now`), and as every
/// reader takes it (`clean-now`, `watch`, a registered cleaner's event filter).
///
/// `{"event":"cleanup","run":…,"trigger":…,"triggers":[…],"removed":N,"freed":N,
/// "seconds":S,"dry_run":B,"time":…,"root":…,"cleaners":[{"name","removed","freed","error",
/// "paths","skipped":{"<reason>":{"count":N,"examples":[…]}}}]}`. `trigger` is the first
/// trigger's kind; in a dry run each cleaner's `paths` are those it would remove. Reading is
/// lenient where an older writer or a hand-written line may say less: `run` (empty when
/// absent), `triggers`, `time`, `root` and a cleaner's `skipped` may be missing. Fields a
/// newer daemon adds are ignored.
package struct CleanupSummaryDocument: Codable, Sendable, Equatable {
    package static let kind = "cleanup"

    package struct Cleaner: Codable, Sendable, Equatable {
        package var name: String
        package var removed: UInt64
        package var freed: UInt64
        /// The error it threw, or that it timed out; null when it returned.
        package var error: String?
        /// What it removed (in a dry run, would remove), escaped as paths are.
        package var paths: [String]
        /// What it chose but kept, by reason.
        package var skipped: [String: Skipped]

        package init(
            name: String, removed: UInt64, freed: UInt64, error: String?, paths: [String],
            skipped: [String: Skipped]
        ) {
            self.name = name
            self.removed = removed
            self.freed = freed
            self.error = error
            self.paths = paths
            self.skipped = skipped
        }

        enum CodingKeys: String, CodingKey {
            case name, removed, freed, error, paths, skipped
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            removed = try container.decode(UInt64.self, forKey: .removed)
            freed = try container.decode(UInt64.self, forKey: .freed)
            error = try container.decodeIfPresent(String.self, forKey: .error)
            paths = try container.decodeIfPresent([String].self, forKey: .paths) ?? []
            skipped = try container.decodeIfPresent([String: Skipped].self, forKey: .skipped) ?? [:]
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(removed, forKey: .removed)
            try container.encode(freed, forKey: .freed)
            try container.encode(error, forKey: .error)
            try container.encode(paths, forKey: .paths)
            try container.encode(skipped, forKey: .skipped)
        }
    }

    /// The names kept for one reason: how many, and the first few (escaped as paths are).
    package struct Skipped: Codable, Sendable, Equatable {
        package var count: UInt64
        package var examples: [String]

        package init(count: UInt64, examples: [String]) {
            self.count = count
            self.examples = examples
        }
    }

    /// The daemon's ROOT on an event line; absent from the `clean` reply.
    package var root: String?
    package var time: String?
    package var run: String
    /// The first trigger's kind.
    package var trigger: String
    package var triggers: [ContractTrigger]
    package var removed: UInt64
    package var freed: UInt64
    /// Written to three decimals (``ContractNumber``).
    package var seconds: Double
    package var dryRun: Bool
    package var cleaners: [Cleaner]

    package init(
        root: String?, time: String?, run: String, trigger: String, triggers: [ContractTrigger], removed: UInt64,
        freed: UInt64, seconds: Double, dryRun: Bool, cleaners: [Cleaner]
    ) {
        self.root = root
        self.time = time
        self.run = run
        self.trigger = trigger
        self.triggers = triggers
        self.removed = removed
        self.freed = freed
        self.seconds = seconds
        self.dryRun = dryRun
        self.cleaners = cleaners
    }

    enum CodingKeys: String, CodingKey {
        case event, root, time, run, trigger, triggers, removed, freed, seconds, cleaners
        case dryRun = "dry_run"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try container.expectKind(Self.kind, forKey: .event)
        root = try container.decodeIfPresent(String.self, forKey: .root)
        time = try container.decodeIfPresent(String.self, forKey: .time)
        run = try container.decodeIfPresent(String.self, forKey: .run) ?? ""
        trigger = try container.decode(String.self, forKey: .trigger)
        triggers = try container.decodeIfPresent([ContractTrigger].self, forKey: .triggers) ?? []
        removed = try container.decode(UInt64.self, forKey: .removed)
        freed = try container.decode(UInt64.self, forKey: .freed)
        seconds = try container.decode(ContractNumber.self, forKey: .seconds).value
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
        cleaners = try container.decode([Cleaner].self, forKey: .cleaners)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.kind, forKey: .event)
        try container.encodeIfPresent(root, forKey: .root)
        try container.encodeIfPresent(time, forKey: .time)
        try container.encode(run, forKey: .run)
        try container.encode(trigger, forKey: .trigger)
        try container.encode(triggers, forKey: .triggers)
        try container.encode(removed, forKey: .removed)
        try container.encode(freed, forKey: .freed)
        try container.encode(ContractNumber(seconds), forKey: .seconds)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(cleaners, forKey: .cleaners)
    }

    /// Reads a summary; throws when the reply is not one.
    package static func decode(_ bytes: [UInt8]) throws -> CleanupSummaryDocument {
        try ContractJSON.decode(CleanupSummaryDocument.self, from: bytes)
    }
}
