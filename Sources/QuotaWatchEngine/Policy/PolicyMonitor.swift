import QuotaWatchCore
import QuotaWatchPolicy

/// The policy layer in the live engine: which directories carry a quota, their states, the
/// disk level, budgets and forecasts, driven by what the engine thread sees. Owned by that
/// thread; everything it decides comes out as ``PolicyEvent``s for the engine to publish.
///
/// How a change reaches it, in one turn of the loop:
/// 1. the tree's structure log (``StructureChanges``) says which directories came, moved or
///    went: removed ones are dropped, new and renamed subtrees are placed with the
///    ``RuleIndex`` from their parent's state and their name; a quota directory gets a rule
///    slot in the tree and an entry in the ``QuotaBook``;
/// 2. the tree lists every slot-carrying directory whose tally changed (its one write path,
///    `adjustTally`, marks them), and only those are evaluated: O(changed × depth);
/// 3. ROOT's total feeds the free-space schedule, and due timers run (free-space readings,
///    budget re-splits).
///
/// A directory keeps a ``RuleIndex/State`` only while some glob may still match below it, so
/// a tree with no rules stores nothing and logs nothing.
package struct PolicyMonitor {
    enum Task: Hashable {
        /// Read ROOT's file system's free space (the level's period has passed).
        case readFreeSpace
        /// Re-evaluate every quota: budget shares move with their members' activity.
        case rebalanceBudgets
    }

    static let budgetPeriod: Duration = .seconds(10)
    /// A reading taken at once after a large change is taken again this much later: the
    /// kernel may free a deleted file's blocks only after its event was sent (tmpfs does).
    static let confirmingRead: Duration = .milliseconds(200)

    var book: QuotaBook<DirectoryID>
    /// Where each directory stands in the rule index, kept only where it is not dead.
    var states: [DirectoryID: RuleIndex.State] = [:]
    private(set) var level = LevelTracker()
    private(set) var lastReading: LevelPolicy.Reading?
    private var freeSpace: FreeSpaceSchedule?
    var deadlines = DeadlineQueue<Task>()
    /// The idle-file leftover rules and their candidates.
    var leftovers = LeftoverWatch(rules: [])
    /// The earliest leftover deadline, kept current by the engine's leftover pass.
    var leftoverDeadline: UInt64?
    private var lastRootAllocated: UInt64 = 0
    /// Directories attached since the last evaluation, evaluated even if their tally did not
    /// change (a new directory, one renamed under a glob).
    var attachedSinceEvaluation: [DirectoryID] = []
    /// Reads `statvfs` of ROOT's file system; nil when it cannot be read.
    private let readSpace: () -> FileSystemSpace?

    init(config: PolicyConfig, readSpace: @escaping () -> FileSystemSpace?) {
        book = QuotaBook(config: config)
        self.readSpace = readSpace
    }

    var config: PolicyConfig { book.config }

    /// Whether any quota or budget rule exists; without one the tree need not log changes.
    var hasRules: Bool { !book.index.globs.isEmpty || !leftovers.isEmpty }

    var nextDeadline: UInt64? { [deadlines.nextDeadline, leftoverDeadline].compactMap { $0 }.min() }

    static func moment(_ now: UInt64) -> Moment { Moment(nanosecondsSinceOrigin: now) }

    static func usage(_ tally: Tally) -> DirectoryUsage {
        DirectoryUsage(allocated: tally.usage.allocated, apparent: tally.usage.apparent)
    }

    // MARK: Whole-tree passes

    /// Places the whole tree afresh, reads the disk level and reports every quota directory
    /// already past a line: after the first crawl, after a resync, and with `config` after a
    /// reload. With `keepingQuotaStates` (a reload over the same tree) every (directory, rule
    /// glob) pair that persists keeps its state, so only real changes are reported.
    mutating func rebuild(
        _ tree: inout TallyTree, config: PolicyConfig? = nil, keepingQuotaStates: Bool, now: UInt64, time: WallTime
    ) -> [PolicyEvent] {
        let moment = Self.moment(now)
        let old = book
        if keepingQuotaStates {
            for key in old.trackedKeys where tree.contains(key) { tree.setRuleSlot(nil, of: key) }
        }
        book = QuotaBook(config: config ?? old.config)
        let keptLeftovers = leftovers.schedule
        let rootNames = Set(
            tree.subdirectories(of: tree.root).map { String(decoding: tree.name(of: $0), as: UTF8.self) })
        let profile = IOSSandboxProfile.applies(choice: book.config.profile, rootDirectories: rootNames)
        leftovers = LeftoverWatch(rules: book.config.effectiveLeftoverRules(profileApplies: profile))
        // A reload keeps what was seen of each candidate, so a leftover is not reported twice.
        if keepingQuotaStates { leftovers.schedule = keptLeftovers }
        leftovers.directoriesChanged = true
        states.removeAll()
        attachedSinceEvaluation.removeAll()
        placeSubtree(tree.root, in: &tree, at: moment)
        attachedSinceEvaluation.removeAll()
        if keepingQuotaStates {
            for key in book.trackedKeys where old.isTracked(key) {
                book.restore(key, states: old.states(of: key))
                book.restore(key, forecasts: old.forecasts(of: key))
            }
        }
        _ = tree.drainDirtyDirectories()
        lastRootAllocated = tree.tally(of: tree.root).usage.allocated
        deadlines.cancel(.rebalanceBudgets)
        if !book.config.budgets.isEmpty {
            deadlines.schedule(.rebalanceBudgets, at: now + Self.budgetPeriod.nanoseconds)
        }
        var events = readFreeSpace(tree, now: now, time: time, evaluatingOnChange: false)
        events += book.evaluateAll(
            usage: { tree.contains($0) ? Self.usage(tree.tally(of: $0)) : nil }, level: level.level, at: moment,
            time: time)
        return events
    }

    // MARK: Each turn

    /// Brings the policy up to date with one turn of the engine: the structure changes, the
    /// directories whose tally changed, ROOT's total and the timers that are due.
    mutating func afterTurn(
        _ tree: inout TallyTree, changes: StructureChanges, now: UInt64, time: WallTime
    ) -> [PolicyEvent] {
        let moment = Self.moment(now)
        if !changes.isEmpty { apply(changes, to: &tree, at: moment) }
        var events: [PolicyEvent] = []
        let changed = tree.drainDirtyDirectories()
        for directory in changed { book.recordChange(directory, at: moment) }
        var evaluate = changed
        if !attachedSinceEvaluation.isEmpty {
            let listed = Set(changed)
            evaluate += attachedSinceEvaluation.filter { !listed.contains($0) }
            attachedSinceEvaluation.removeAll()
        }
        for directory in evaluate where tree.contains(directory) {
            events += book.evaluate(
                directory, usage: Self.usage(tree.tally(of: directory)), level: level.level, at: moment, time: time)
        }

        let rootAllocated = tree.tally(of: tree.root).usage.allocated
        let delta = Int64(bitPattern: rootAllocated &- lastRootAllocated)
        lastRootAllocated = rootAllocated
        let stepped = delta != 0 && freeSpace?.recordChange(delta) == true
        var readNow = stepped
        var rebalance = false
        for task in deadlines.takeDue(now: now) {
            switch task {
            case .readFreeSpace: readNow = true
            case .rebalanceBudgets: rebalance = true
            }
        }
        if readNow {
            let levelEvents = readFreeSpace(tree, now: now, time: time, evaluatingOnChange: true)
            // A level change re-evaluated every quota already.
            if !levelEvents.isEmpty { rebalance = false }
            events += levelEvents
            if stepped { deadlines.schedule(.readFreeSpace, at: now + Self.confirmingRead.nanoseconds) }
        }
        if rebalance {
            events += book.evaluateAll(
                usage: { tree.contains($0) ? Self.usage(tree.tally(of: $0)) : nil }, level: level.level, at: moment,
                time: time)
            deadlines.schedule(.rebalanceBudgets, at: now + Self.budgetPeriod.nanoseconds)
        }
        return events
    }

    // MARK: Disk levels

    /// Reads free space now and schedules the next reading by the level's period. A level
    /// change comes out as its event and, with `evaluatingOnChange`, every quota re-checked
    /// against its rescaled limit.
    private mutating func readFreeSpace(
        _ tree: TallyTree, now: UInt64, time: WallTime, evaluatingOnChange: Bool
    ) -> [PolicyEvent] {
        let moment = Self.moment(now)
        let policy = book.config.levels
        guard let space = readSpace() else {
            deadlines.schedule(.readFreeSpace, at: now + policy.checkPeriod[level.level].nanoseconds)
            return []
        }
        let reading = LevelPolicy.Reading(
            free: space.availableBytes, total: space.totalBytes,
            rootAllocated: tree.tally(of: tree.root).usage.allocated)
        lastReading = reading
        if freeSpace == nil {
            freeSpace = FreeSpaceSchedule(readAt: moment, reading: reading, policy: policy)
        } else {
            freeSpace!.didRead(at: moment, reading: reading, policy: policy)
        }
        var events: [PolicyEvent] = []
        if let change = level.update(reading, policy: policy) {
            events.append(PolicyEvent(change, time: time))
            if evaluatingOnChange {
                events += book.evaluateAll(
                    usage: { tree.contains($0) ? Self.usage(tree.tally(of: $0)) : nil }, level: level.level,
                    at: moment, time: time)
            }
        }
        deadlines.schedule(.readFreeSpace, at: now + policy.checkPeriod[level.level].nanoseconds)
        return events
    }
}
