import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Something that frees space when a cleanup run asks: the built-in cleaners, or a program's
/// own. It removes files only through ``CleanupContext/remover``.
public protocol Cleaner: Sendable {
    var name: String { get }
    func clean(_ context: CleanupContext) async throws -> CleanupResult
    /// How long one call may take; nil is the runner's timeout.
    var callTimeout: Duration? { get }
}

extension Cleaner {
    public var callTimeout: Duration? { nil }
}

/// Stands for a changing list of cleaners in the run order (those programs registered over
/// the control socket): the runner asks for its members at the start of each run.
protocol CleanerGroup: Cleaner {
    func members() -> [any Cleaner]
}

/// Thrown by a cleaner that a trigger does not concern: it is left out of the run's summary
/// unless another trigger of the run concerned it.
struct CleanerNotConcerned: Error {}

/// Why a cleanup run happens. Each is named in the run's summary.
public enum CleanupTrigger: Sendable, Hashable {
    /// A quota directory went above its effective limit: clean it down to its target.
    case breach(path: [UInt8])
    /// The disk level changed.
    case level(from: DiskLevel, to: DiskLevel)
    /// The first start with a new app version (`old` is nil on the very first start).
    case appVersion(old: String?, new: String)
    /// The periodic fallback, at the level in force.
    case periodic(DiskLevel)
    /// A file became a leftover of `rule`.
    case leftover(path: [UInt8], rule: String)
    /// By hand (`clean-now`, the control socket), with the name the caller gave.
    case manual(String)

    /// The trigger's kind as the summary and the audit log write it.
    public var name: String {
        switch self {
        case .breach: "quota_breach"
        case .level: "level"
        case .appVersion: "app_version"
        case .periodic: "periodic"
        case .leftover: "leftover"
        case .manual: "manual"
        }
    }

    /// The trigger as a JSON object: `kind` and what it names.
    public var fields: [String: PolicyJSON] {
        var fields: [String: PolicyJSON] = ["kind": .string(name)]
        switch self {
        case .breach(let path): fields["path"] = .string(EscapedName.string(path))
        case .level(let from, let to):
            fields["from"] = .string(from.rawValue)
            fields["to"] = .string(to.rawValue)
        case .appVersion(let old, let new):
            fields["old"] = old.map { .string($0) } ?? .null
            fields["new"] = .string(new)
        case .periodic(let level): fields["level"] = .string(level.rawValue)
        case .leftover(let path, let rule):
            fields["path"] = .string(EscapedName.string(path))
            fields["rule"] = .string(rule)
        case .manual(let label): fields["name"] = .string(label)
        }
        return fields
    }
}

/// The directory a breach names: its tally, its limit in force and where cleaning stops.
public struct CleanupDirectory: Sendable, Equatable {
    public var path: [UInt8]
    /// The size the quota counts (allocated or apparent, as `size` says).
    public var used: UInt64
    public var size: SizeKind
    public var effectiveLimit: UInt64
    /// Cleaning stops once `used` is at or under this.
    public var target: UInt64
    /// The directory's whole tally (both sizes, files, directories) when the engine has it.
    public var tally: Tally?

    /// `target` defaults to 80 % of the effective limit.
    public init(
        path: [UInt8], used: UInt64, size: SizeKind = .allocated, effectiveLimit: UInt64, target: UInt64? = nil,
        tally: Tally? = nil
    ) {
        self.tally = tally
        self.path = path
        self.used = used
        self.size = size
        self.effectiveLimit = effectiveLimit
        self.target = target ?? Self.defaultTarget(effectiveLimit: effectiveLimit)
    }

    /// 80 % of the effective limit, rounded down.
    public static func defaultTarget(effectiveLimit: UInt64) -> UInt64 {
        effectiveLimit / 5 * 4 + effectiveLimit % 5 * 4 / 5
    }
}

/// What the engine knows for one trigger, handed to every cleaner.
public struct CleanupInputs: Sendable {
    public var level: DiskLevel
    public var directory: CleanupDirectory?
    /// What the rules found: leftovers, or the files of the breached directory.
    public var candidates: [CleanupCandidate]

    public init(level: DiskLevel, directory: CleanupDirectory? = nil, candidates: [CleanupCandidate] = []) {
        self.level = level
        self.directory = directory
        self.candidates = candidates
    }
}

/// Everything a cleaner gets.
public struct CleanupContext: Sendable {
    public var trigger: CleanupTrigger
    public var level: DiskLevel
    public var directory: CleanupDirectory?
    public var candidates: [CleanupCandidate]
    /// Nothing is removed: the remover checks and reports what it would remove.
    public var dryRun: Bool
    /// The only way a cleaner removes anything; it writes the audit log.
    public var remover: Remover
    public var runID: String
    /// The daemon's ROOT, absolute and escaped as paths are (the `root` of its events); nil
    /// for a runner that serves no daemon.
    public var root: String?

    public init(
        trigger: CleanupTrigger, inputs: CleanupInputs, dryRun: Bool, remover: Remover, runID: String,
        root: String? = nil
    ) {
        self.trigger = trigger
        self.level = inputs.level
        self.directory = inputs.directory
        self.candidates = inputs.candidates
        self.dryRun = dryRun
        self.remover = remover
        self.runID = runID
        self.root = root
    }
}

/// One name a cleaner removed (or would remove, in a dry run).
public struct RemovedItem: Sendable, Hashable {
    public var path: [UInt8]
    /// Bytes the cleaned directory's tally drops (what du would drop there).
    public var freedBytes: UInt64

    public init(path: [UInt8], freedBytes: UInt64) {
        self.path = path
        self.freedBytes = freedBytes
    }
}

/// What a cleaner did.
public struct CleanupResult: Sendable, Hashable {
    public var removed: [RemovedItem]
    /// Names left alone, with the reason (`SkipReason.description`).
    public var skipped: [SkippedItem]
    /// Why the cleaner stopped before its end: the audit log could not record an intent (a
    /// full disk), so nothing more could be removed. The message names the log and the way out.
    public var error: String?
    /// Bytes a cleaner said it freed without naming them per file (a registered cleaner's
    /// `freed`), counted on top of `removed`'s.
    public var unattributedFreedBytes: UInt64 = 0

    public init(removed: [RemovedItem] = [], skipped: [SkippedItem] = [], error: String? = nil) {
        self.removed = removed
        self.skipped = skipped
        self.error = error
    }

    public var freedBytes: UInt64 {
        removed.reduce(unattributedFreedBytes) { Saturating.sum($0, $1.freedBytes) }
    }
}

/// A name a cleaner chose but left, and why.
public struct SkippedItem: Sendable, Hashable {
    public var path: [UInt8]
    public var reason: String

    public init(path: [UInt8], reason: String) {
        self.path = path
        self.reason = reason
    }
}
