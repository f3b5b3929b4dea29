import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// The whole cleaning turn on the fake file system, as the engine runs it: events into the
/// tree, the policy's pass, the leftover pass, the coordinator's end of turn (the very
/// ``CleanupCoordinator/endTurn(_:_:now:)`` the participant calls), the runner with the
/// built-in cleaners, and a stand-in for a registered cleaner. Deletions go to ``SimulatedDisk``,
/// which knows what is on disk and what the writers did, independently of the engine, so
/// that ``CleaningOracle`` can judge every deletion.
struct CleaningSimulation {
    static let second: Int64 = 1_000_000_000
    static let wallStart: Int64 = 1_796_166_245 * second
    static let leftoverAge: Duration = .seconds(5)
    static let quotaLimit: UInt64 = 60_000
    static let caches = ["Caches/a", "Caches/b", "Caches/c"]

    var p: PolicyHarness
    let disk: SimulatedDisk
    let runner: CleanupRunner
    let plans: CleanupPlans
    var coordinator: CleanupCoordinator
    let collector = SummaryCollector()
    let pass: LeftoverPass<FakeFileSystem>
    let engineStart: UInt64
    var handledSummaries = 0
    /// Every policy event, in order, for the announcement checks.
    var announced: [PolicyEvent] = []

    init() throws {
        var fs = FakeFileSystem()
        fs.wallNow = Self.wallStart
        for directory in ["Caches", "tmp"] + Self.caches { try fs.mkdir(FakePath(stringLiteral: directory)) }
        var config = try PolicyHarness.config([("Caches/*", Self.quotaLimit)])
        config.leftovers.rules = [
            LeftoverRule(name: "downloads", paths: [try PathGlob("tmp/*.tmp")], kind: .idleFile(age: Self.leftoverAge))
        ]
        config.levels.checkPeriod = PerLevel(normal: .seconds(1), warning: .seconds(1), critical: .seconds(1))
        config.cleanup.cleaners = [
            .leftovers(name: "leftovers"),
            .evict(name: "evict", path: try PathGlob("Caches/*"), order: .oldestModified, target: 0.8),
            .command(name: "app", argv: [], timeout: .seconds(30)),
        ]
        p = PolicyHarness(fs, config: config)
        engineStart = p.h.now
        let disk = SimulatedDisk()
        self.disk = disk
        pass = LeftoverPass(isOpenForWriting: { _ in false }, wallClock: { disk.wallNow })
        let plans = CleanupPlans()
        self.plans = plans
        let collector = collector
        runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: false), backend: disk, clock: SimulatedClock(disk: disk),
            instance: "sim", prepare: { CleanupInputs(level: plans.activate($0)?.level ?? .normal) },
            completion: { collector.receive($0) })
        runner.register(PlannedCleaner(inner: LeftoverCleaner(), slot: 0, plans: plans, dryBackend: disk))
        runner.register(PlannedCleaner(inner: EvictionCleaner(), slot: 1, plans: plans, dryBackend: disk))
        runner.register(PlannedCleaner(inner: AppCleaner(disk: disk), slot: 2, plans: plans, dryBackend: disk))
        coordinator = CleanupCoordinator(
            settings: config.cleanup, runner: runner, plans: plans, dryRun: false, now: p.h.now)
        for event in p.monitor.rebuild(
            &p.h.live.tree, keepingQuotaStates: false, now: p.h.now, time: WallTime(millisecondsSinceEpoch: 0))
        {
            note(event)
        }
        disk.sync(from: p.h.fs)
        for event in pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now) { note(event) }
    }

    mutating func note(_ event: PolicyEvent) {
        announced.append(event)
        coordinator.note(event)
    }

    /// Moves both clocks on by `milliseconds`, in step.
    mutating func advance(milliseconds: Int64) {
        p.h.now += UInt64(milliseconds) * 1_000_000
        syncWall()
    }

    private mutating func syncWall() {
        let wall = Self.wallStart + Int64(p.h.now) - Int64(engineStart)
        p.h.fs.wallNow = wall
        disk.setWall(wall)
    }

    /// One engine turn, and the cleanup run it submits carried out to its end: what the
    /// planner saw is kept for the oracle before the turn plans.
    mutating func turn(oracle: inout CleaningOracle) {
        p.h.deliverAndWait()
        syncWall()
        let changes = p.h.live.drainStructureChanges()
        let events = p.monitor.afterTurn(
            &p.h.live.tree, changes: changes, now: p.h.now, time: WallTime(millisecondsSinceEpoch: 0))
        for event in events { note(event) }
        for event in pass.run(&p.monitor, &p.h.live, changed: changes.files, now: p.h.now) { note(event) }
        disk.sync(from: p.h.fs)
        oracle.planning(self)
        var monitor: PolicyMonitor? = p.monitor
        let again = coordinator.endTurn(&p.h.live, &monitor, now: p.h.now)
        p.monitor = monitor!
        if again {
            let changes = p.h.live.drainStructureChanges()
            for event in p.monitor.afterTurn(
                &p.h.live.tree, changes: changes, now: p.h.now, time: WallTime(millisecondsSinceEpoch: 0))
            {
                note(event)
            }
        }
        runner.waitUntilIdle()
        let summaries = collector.summaries
        for summary in summaries.dropFirst(handledSummaries) {
            let (removed, refused, appCalls) = disk.takeRemoved()
            for removal in removed {
                try? p.h.fs.unlink(FakePath(stringLiteral: String(decoding: removal.path, as: UTF8.self)))
            }
            oracle.ran(summary, removed: removed, refused: refused, appCalls: appCalls)
            coordinator.finished(summary, now: p.h.now)
        }
        handledSummaries = summaries.count
    }
}

/// The stand-in for a program registered as a cleaner: it checks that its context is fresh
/// (no candidate already gone, the directory's use as the disk has it now) and, as a program
/// may, sometimes removes one of its candidates.
struct AppCleaner: Cleaner {
    let name = "app"
    let disk: SimulatedDisk

    func clean(_ context: CleanupContext) throws -> CleanupResult {
        disk.noteAppContext(context)
        guard let candidate = context.candidates.first, disk.flipCoin() else { return CleanupResult() }
        var result = CleanupResult()
        _ = result.record(context.remover.remove(candidate), path: candidate.path, inDirectory: nil)
        return result
    }
}

/// The runner's clock: the simulation's wall time, real sleeps (no cleaner here takes long).
struct SimulatedClock: CleanupClock {
    let disk: SimulatedDisk
    var wallTime: WallTime { WallTime(millisecondsSinceEpoch: disk.wallNow / 1_000_000) }
    var monotonic: Moment { .now }
    func sleep<State>(
        for duration: Duration, on state: BlockingState<State>, until ended: (inout State) -> Bool
    )
        -> Bool
    {
        state.waitUntil(deadline: .now + duration, ended)
    }
}
