import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// A ``LiveTree`` over a ``FakeFileSystem``, driven by the engine's own ``EngineStep`` on a
/// ``ManualEngineClock`` the test moves by hand: the same turn ``LiveEngine`` runs, with only
/// the tree's part of it (``TreeOnlyActions``). Operations go to `fs`; their events wait in its
/// queue until the test delivers them, so stats can see a later state than the events describe.
struct LiveTreeHarness {
    static let markerPrefix = Array(".quotawatch-sync-".utf8)

    var step: EngineStep<FakeFileSystem, ManualEngineClock>

    var live: LiveTree<FakeFileSystem> {
        get { step.live }
        _modify { yield &step.live }
    }
    var clock: ManualEngineClock { step.clock }
    var schedule: EngineSchedule { step.schedule }

    /// Nanoseconds, as the engine passes them to `apply` and `runTimers`. Setting it moves the
    /// clock (forward only, as time goes).
    var now: UInt64 {
        get { step.clock.now }
        set { step.clock.advance(by: .nanoseconds(Int64(newValue - step.clock.now))) }
    }

    /// Crawls `fileSystem` as the engine's first crawl does; events of the set-up are dropped.
    init(_ fileSystem: FakeFileSystem) { self.init(fileSystem, keepingEvents: false) }

    /// With `keepingEvents`, the events queued before the crawl stay for the test to deliver:
    /// changes made while the first crawl ran, read after it.
    init(_ fileSystem: FakeFileSystem, keepingEvents: Bool) {
        var fileSystem = fileSystem
        if !keepingEvents { fileSystem.discardEvents() }
        let (tree, report) = fileSystem.crawlRoot()!
        let clock = ManualEngineClock()
        step = EngineStep(
            live: LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Self.markerPrefix),
            schedule: EngineSchedule(now: clock.now), clock: clock)
    }

    /// The file system, changed in place.
    var fs: FakeFileSystem {
        get { live.fileSystem }
        _modify { yield &step.live.fileSystem }
    }

    var pendingEvents: Int { live.fileSystem.queue.count }

    /// Applies up to `count` queued events as one batch, as the engine applies a batch from the
    /// mailbox, then runs the timers that are due.
    mutating func deliver(_ count: Int = .max) {
        // Converted as the inotify reader converts them.
        let batch = live.fileSystem.takeEvents(count).map(FileSystemChange.init)
        if !batch.isEmpty { _ = step.apply(batch) }
        live.runTimers(now: now)
    }

    /// The rest of one engine turn, the engine's own: whatever the schedule says is due now (a
    /// resync once its backoff has passed, the settled flush, the poll of unwatched subtrees).
    mutating func runDueWork() {
        var actions = TreeOnlyActions<FakeFileSystem, ManualEngineClock>()
        step.turn(&actions)
    }

    var conditions: LoopConditions { step.conditions() }

    mutating func flush() { live.flush() }

    mutating func advance(milliseconds: UInt64) { now += milliseconds * 1_000_000 }

    /// Delivers everything, then lets the move window pass, as a quiet engine would.
    mutating func deliverAndWait() {
        deliver()
        flush()
        now += live.moveWindow + 1
        live.runTimers(now: now)
        flush()
    }

    /// What the engine does for `status --sync` once its marker has come back: every event
    /// before it applied, a resync if one is owed, then the settle.
    mutating func sync() {
        let marker = Array("harness-sync".utf8)
        step.schedule.syncStarted(marker, at: now)
        deliver()
        // A waiting sync makes a resync due at once, backoff or not.
        if step.schedule.due(conditions, now: now).resync { _ = step.resyncTree() }
        step.schedule.syncEnded(marker)
        live.settleForSync()
    }

    func directory(at path: FakePath) -> DirectoryID? {
        var current = live.tree.root
        for component in path.components {
            guard case .directory(let next)? = live.tree.entry(named: component, in: current) else { return nil }
            current = next
        }
        return current
    }

    /// Every way the tree differs from what du would say about the fake, and every directory
    /// that should be watched but is not; empty when the tree is exact.
    func mismatches() -> [String] {
        let tree = live.tree
        let fake = live.fileSystem
        let degraded = live.degradedDirectories
        var problems = tree.consistencyViolations()
        var names = 0
        let totals = fake.duTotals()
        for expected in totals {
            let path = expected.path
            guard let directory = directory(at: path) else {
                problems.append("'\(path)': missing from the tree")
                continue
            }
            if tree.inode(of: directory) != expected.inode {
                problems.append("'\(path)': tree has inode \(tree.inode(of: directory)), the fake \(expected.inode)")
            }
            let tally = tree.tally(of: directory)
            if tally != expected.tally {
                problems.append("'\(path)': tree \(describe(tally)), du \(describe(expected.tally))")
            }
            let node = fake.nodes[expected.inode]!
            var treeNames: [[UInt8]: TreeEntry] = [:]
            for child in tree.subdirectories(of: directory) {
                treeNames[Array(tree.name(of: child))] = .directory(child)
            }
            for file in tree.files(in: directory) { treeNames[Array(tree.name(of: file))] = .file(file) }
            let fakeEntries = node.isReadable ? node.entries : [:]
            names += fakeEntries.values.filter { !fake.nodes[$0]!.isDirectory }.count
            for (name, entry) in treeNames where fakeEntries[name] == nil {
                problems.append("'\(path.appending(name))': \(entry) in the tree only")
            }
            for (name, inode) in fakeEntries {
                let childPath = path.appending(name)
                let child = fake.nodes[inode]!
                switch treeNames[name] {
                case nil:
                    problems.append("'\(childPath)': missing from the tree")
                case .directory?:
                    if !child.isDirectory { problems.append("'\(childPath)': a directory in the tree, a file in fact") }
                case .file(let file)?:
                    if child.isDirectory {
                        problems.append("'\(childPath)': a file in the tree, a directory in fact")
                    } else if tree.inode(of: file) != inode
                        || tree.usage(of: file) != Usage(allocated: child.allocated, apparent: child.apparent)
                    {
                        problems.append(
                            "'\(childPath)': tree has inode \(tree.inode(of: file)) \(tree.usage(of: file)), "
                                + "the fake \(inode) \(child.allocated)/\(child.apparent)")
                    }
                }
            }
            let isPolled = degraded.contains { tree.isDescendant(directory, of: $0) }
            if node.isReadable && !isPolled {
                let watch = tree.watch(of: directory)
                if watch < 0 || fake.inodeByWatch[watch] != expected.inode
                    || live.directory(forWatch: watch) != directory
                {
                    problems.append(
                        "'\(path)': not watched (tree slot \(watch), kernel watch for \(fake.inodeByWatch[watch] ?? 0), "
                            + "engine maps it to \(live.directory(forWatch: watch).map { "\($0)" } ?? "nothing"))")
                }
            }
        }
        if tree.directoryCount != totals.count {
            problems.append("the tree has \(tree.directoryCount) directories, du \(totals.count)")
        }
        if tree.fileCount != names { problems.append("the tree has \(tree.fileCount) names, du \(names)") }
        return problems
    }

    private func describe(_ tally: Tally) -> String {
        "\(tally.allocated)/\(tally.apparent) bytes, \(tally.files) files, \(tally.dirs) dirs"
    }
}

/// Records an issue listing every difference between the tree and du, if there is any.
func expectExact(
    _ harness: LiveTreeHarness, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    let problems = harness.mismatches()
    #expect(
        problems.isEmpty, "\(context)\n\(problems.prefix(20).joined(separator: "\n"))", sourceLocation: sourceLocation)
}
