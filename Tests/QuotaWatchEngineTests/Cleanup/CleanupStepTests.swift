import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import Synchronization
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// The engine thread's side of cleaning, driven in process on the engine's own step over a
/// fake file system: the open log, the planner, the coordinator and the leftover timers.
@Suite("cleanup on the engine step, in process")
struct CleanupStepTests {
    /// Caches/a/{old,new} of 30 kB each under a 40 kB quota on Caches/*, evicted by `order`;
    /// Other/f outside it.
    private func fixture(order: EvictionOrder = .leastRecentlyUsed) throws -> (PolicyHarness, [PolicyEvent]) {
        var fs = FakeFileSystem()
        for directory in ["Caches", "Caches/a", "Other"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("Caches/a/old", size: 30_000)
        try fs.createFile("Caches/a/new", size: 30_000)
        try fs.createFile("Other/f", size: 100)
        var config = try PolicyHarness.config([("Caches/*", 40_000)])
        config.cleanup.cleaners = [.evict(name: "caches", path: try PathGlob("Caches/*"), order: order, target: 0.5)]
        var p = PolicyHarness(fs, config: config)
        let events = p.monitor.rebuild(
            &p.h.live.tree, keepingQuotaStates: false, now: p.h.now, time: WallTime(millisecondsSinceEpoch: 0))
        return (p, events)
    }

    private func file(_ name: String, in directory: DirectoryID, _ tree: TallyTree) throws -> FileID {
        guard case .file(let file)? = tree.entry(named: Array(name.utf8), in: directory) else {
            throw TestFailure(message: "no file \(name)")
        }
        return file
    }

    @Test("lru: only the evicted subtree is watched for opens; an open is noted by file and never reaches the tree")
    func openLogNotesOpensOfWatchedDirectories() throws {
        var (p, _) = try fixture()
        var opens = OpenLog(settings: p.monitor.config.cleanup)
        #expect(opens.isActive)
        opens.watch(&p.h.live, monitor: p.monitor)
        let cache = try #require(p.directory("Caches/a"))
        let other = try #require(p.directory("Other"))
        #expect(p.h.fs.watchesOpens.contains(p.h.live.tree.watch(of: cache)))
        #expect(!p.h.fs.watchesOpens.contains(p.h.live.tree.watch(of: other)))

        try p.h.fs.open("Caches/a/old")
        try p.h.fs.open("Other/f")  // its directory reports no opens
        try p.h.fs.write("Caches/a/new", size: 31_000)
        let batch = p.h.fs.takeEvents().map(FileSystemChange.init)
        #expect(batch.filter { $0.kind.contains(.opened) }.count == 1)
        let rest = opens.take(batch, p.h.live, now: 42)
        #expect(rest.count == batch.count - 1 && !rest.contains { $0.kind.contains(.opened) })
        let tree = p.h.live.tree
        #expect(opens.lastOpen(of: try file("old", in: cache, tree), in: tree) == 42)
        #expect(opens.lastOpen(of: try file("new", in: cache, tree), in: tree) == nil)
        _ = p.h.step.apply(rest)
        p.h.flush()
        expectExact(p.h, "the write after the open is applied as usual")
    }

    @Test("a breach is planned from the live tree: the breached directory, its target and its files with their opens")
    func plannerPlansTheBreachedDirectory() throws {
        var (p, events) = try fixture()
        #expect(p.describe(events) == ["quota_breach Caches/a"])
        var opens = OpenLog(settings: p.monitor.config.cleanup)
        opens.watch(&p.h.live, monitor: p.monitor)
        try p.h.fs.open("Caches/a/old")
        _ = opens.take(p.h.fs.takeEvents().map(FileSystemChange.init), p.h.live, now: 7)
        var planner = CleanupPlanner(
            settings: p.monitor.config.cleanup, monitor: p.monitor, level: .normal, now: p.h.now, opens: opens)
        let plan = planner.plan(
            for: .breach(path: Array("Caches/a".utf8)), live: &p.h.live, breach: (.allocated, 40_000, "Caches/*"))
        let jobs = try #require(plan.jobs.first)
        #expect(jobs.count == 1)
        let inputs = try #require(jobs.first)
        #expect(inputs.directory?.path == Array("Caches/a".utf8))
        #expect(inputs.directory?.effectiveLimit == 40_000)
        #expect((inputs.directory?.target ?? .max) < 40_000, "eviction aims below the limit")
        let byName = Dictionary(uniqueKeysWithValues: inputs.candidates.map { ($0.path, $0) })
        #expect(Set(byName.keys) == [Array("Caches/a/old".utf8), Array("Caches/a/new".utf8)])
        #expect(byName[Array("Caches/a/old".utf8)]?.lastOpenNanoseconds == 7)
        #expect(byName[Array("Caches/a/new".utf8)]?.lastOpenNanoseconds == nil)
    }

    @Test(
        "the coordinator plans a noted breach in the same turn, submits one run and holds the directory until it settles"
    )
    func coordinatorSubmitsTheTurnsBreach() throws {
        var (p, events) = try fixture(order: .oldestModified)
        let plans = CleanupPlans()
        let prepared = Mutex<[CleanupPlan]>([])
        let summaries = SummaryCollector()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: true), backend: RecordingBackend(), instance: "test",
            prepare: { trigger in
                let plan = plans.activate(trigger)
                if let plan { prepared.withLock { $0.append(plan) } }
                return CleanupInputs(level: plan?.level ?? .normal)
            },
            completion: { summaries.receive($0) })
        runner.register(ScriptedCleaner(name: "probe", behaviour: .succeed, log: EventLog()))
        var coordinator = CleanupCoordinator(
            settings: p.monitor.config.cleanup, runner: runner, plans: plans, dryRun: true, now: p.h.now)
        for event in events { coordinator.note(event) }
        #expect(coordinator.nextDeadline == 0, "a noted trigger asks for a turn at once")
        coordinator.turn(&p.h.live, monitor: p.monitor, now: p.h.now)
        #expect(coordinator.settling.paths.contains(Array("Caches/a".utf8)))
        runner.waitUntilIdle()
        let summary = try #require(summaries.summaries.first)
        #expect(summaries.summaries.count == 1)
        #expect(summary.triggers == [.breach(path: Array("Caches/a".utf8))])
        let plan = try #require(prepared.withLock { $0.first })
        #expect(plan.jobs.first?.first?.directory?.path == Array("Caches/a".utf8))
        #expect(coordinator.nextDeadline > p.h.now, "nothing waits: the next turn is the periodic one")
    }

    @Test("an idle download becomes a leftover at its deadline, and not while a writer holds it open")
    func leftoverTimersFireAtTheDeadline() throws {
        for held in [false, true] {
            var fs = FakeFileSystem()
            try fs.mkdir("Downloads")
            try fs.createFile("Downloads/big.part", size: 10_000)
            var config = PolicyConfig()
            config.leftovers.rules = [
                LeftoverRule(
                    name: "downloads", paths: [try PathGlob("Downloads/*")], kind: .idleFile(age: .seconds(60)))
            ]
            var p = PolicyHarness(fs, config: config)
            _ = p.start()
            // The fake's files were last written at 0 on the wall clock, which reads 10 s now.
            let wall = Mutex<Int64>(10_000_000_000)
            let pass = LeftoverPass<FakeFileSystem>(
                isOpenForWriting: { _ in held }, wallClock: { wall.withLock { $0 } })
            #expect(pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now).isEmpty)
            let deadline = try #require(p.monitor.leftoverDeadline)
            #expect(deadline == p.h.now + 50_000_000_000, "60 s after the write, 10 s of which have passed")

            p.h.now = deadline - 1
            wall.withLock { $0 += 50_000_000_000 - 1 }
            #expect(pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now).isEmpty, "not yet")
            p.h.now = deadline
            wall.withLock { $0 += 1 }
            let found = pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now)
            #expect(p.describe(found) == (held ? [] : ["leftover Downloads/big.part"]), "held open: \(held)")
        }
    }
}
