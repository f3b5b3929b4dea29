import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Something that frees space when a cleanup run asks: the built-in cleaners, or a program's
/// own. It removes files only through ``CleanupContext/remover``.
package protocol Cleaner: Sendable {
    var name: String { get }
    func clean(_ context: CleanupContext) throws -> CleanupResult
    /// How long one call may take; nil is the runner's timeout.
    var callTimeout: Duration? { get }
}

extension Cleaner {
    package var callTimeout: Duration? { nil }
}

/// Stands for a changing list of cleaners in the run order (those programs registered over
/// the control socket): the runner asks for its members at the start of each run.
protocol CleanerGroup: Cleaner {
    func members() -> [any Cleaner]
}

/// Thrown by a cleaner that a trigger does not concern: it is left out of the run's summary
/// unless another trigger of the run concerned it.
struct CleanerNotConcerned: Error {}

/// The directory a breach names: its tally, its limit in force and where cleaning stops.
package struct CleanupDirectory: Sendable, Equatable {
    package var path: [UInt8]
    /// The size the quota counts (allocated or apparent, as `size` says).
    package var used: UInt64
    package var size: SizeKind
    package var effectiveLimit: UInt64
    /// Cleaning stops once `used` is at or under this.
    package var target: UInt64
    /// The directory's whole tally (both sizes, files, directories) when the engine has it.
    package var tally: Tally?

    /// `target` defaults to 80 % of the effective limit.
    package init(
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
    package static func defaultTarget(effectiveLimit: UInt64) -> UInt64 {
        effectiveLimit / 5 * 4 + effectiveLimit % 5 * 4 / 5
    }
}

/// What the engine knows for one trigger, handed to every cleaner.
package struct CleanupInputs: Sendable {
    package var level: DiskLevel
    package var directory: CleanupDirectory?
    /// What the rules found: leftovers, or the files of the breached directory.
    package var candidates: [CleanupCandidate]

    package init(level: DiskLevel, directory: CleanupDirectory? = nil, candidates: [CleanupCandidate] = []) {
        self.level = level
        self.directory = directory
        self.candidates = candidates
    }
}

/// Everything a cleaner gets.
package struct CleanupContext: Sendable {
    package var trigger: CleanupTrigger
    package var level: DiskLevel
    package var directory: CleanupDirectory?
    package var candidates: [CleanupCandidate]
    /// Nothing is removed: the remover checks and reports what it would remove.
    package var dryRun: Bool
    /// The only way a cleaner removes anything; it writes the audit log.
    package var remover: Remover
    package var runID: String
    /// The daemon's ROOT, absolute and escaped as paths are (the `root` of its events); nil
    /// for a runner that serves no daemon.
    package var root: String?
    /// What the cleaners before this one removed in this run (in a dry run, would remove): the
    /// context above is already settled against it (``CleanupPlan/settle(_:after:)``).
    package var removedEarlier: Set<[UInt8]> = []
    /// The wall clock when the call began, ns since the epoch (the runner's clock): what
    /// eviction judges times in the future against.
    package var nowNanoseconds: Int64 = .max
    /// Set by the runner when the call is past its timeout or the runner stops: a cleaner
    /// looks at it between removals and stops (``Cancellation/check()``).
    package var cancellation = Cancellation()

    package init(
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
