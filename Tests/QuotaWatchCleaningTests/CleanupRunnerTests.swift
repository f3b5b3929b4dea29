import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Testing

@Suite("Cleanup runner: order, waiting, isolation, coalescing")
struct CleanupRunnerTests {
    private func makeRunner(
        clock: ManualCleanupClock, backend: RecordingBackend = RecordingBackend(), collector: SummaryCollector,
        dryRun: Bool = false
    ) -> CleanupRunner {
        CleanupRunner(
            settings: CleanupRunner.Settings(timeout: .seconds(30), dryRun: dryRun), backend: backend, clock: clock,
            instance: "test", prepare: { _ in CleanupInputs(level: .warning) },
            completion: { collector.receive($0) })
    }

    @Test("cleaners run in registration order, each waited for before the next starts")
    func orderAndWaiting() {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let log = EventLog()
        let gate = Gate()
        runner.register(ScriptedCleaner(name: "first", behaviour: .wait(gate), log: log))
        runner.register(ScriptedCleaner(name: "second", behaviour: .succeed, log: log))
        runner.register(ScriptedCleaner(name: "third", behaviour: .succeed, log: log))
        runner.submit(.manual("test"))
        log.waitFor("first start manual")
        #expect(!log.entries.contains("second start manual"))
        gate.open()
        runner.waitUntilIdle()
        #expect(
            log.entries == [
                "first start manual", "first end", "second start manual", "second end", "third start manual",
                "third end",
            ])
        #expect(collector.summaries.count == 1)
        #expect(collector.summaries.first?.cleaners.map(\.name) == ["first", "second", "third"])
    }

    @Test("one cleaner throwing and one hanging past its timeout do not stop the rest; one completion")
    func errorAndTimeoutIsolation() {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let log = EventLog()
        let never = Gate()
        runner.register(ScriptedCleaner(name: "throws", behaviour: .fail("disk on fire"), log: log))
        runner.register(ScriptedCleaner(name: "hangs", behaviour: .hangIgnoringCancellation(never), log: log))
        runner.register(ScriptedCleaner(name: "after", behaviour: .succeed, log: log))
        runner.submit(.periodic(.critical))
        log.waitFor("hangs start periodic")
        // The hanging cleaner's timer is the one sleep left: fire it once it is armed.
        clock.waitForPendingSleep()
        clock.fireAll()
        runner.waitUntilIdle()
        #expect(log.entries.contains("after start periodic"))
        #expect(!log.entries.contains("hangs end"))
        let summary = collector.summaries
        #expect(summary.count == 1)
        #expect(summary.first?.cleaners.map(\.error) == ["disk on fire", "timed out after 30.0 seconds", nil])
        never.open()
    }

    @Test("triggers that arrive during a run coalesce into one follow-up run; duplicates are dropped")
    func coalescing() {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let log = EventLog()
        let gate = Gate()
        runner.register(ScriptedCleaner(name: "slow", behaviour: .wait(gate), log: log))
        runner.submit(.manual("first"))
        log.waitFor("slow start manual")
        runner.submit(.breach(path: Array("Library/Caches/a".utf8)))
        runner.submit(.breach(path: Array("Library/Caches/b".utf8)))
        runner.submit(.breach(path: Array("Library/Caches/a".utf8)))
        gate.open()
        runner.waitUntilIdle()
        let summaries = collector.summaries
        #expect(summaries.count == 2)
        #expect(summaries.first?.triggers == [.manual("first")])
        #expect(
            summaries.last?.triggers == [
                .breach(path: Array("Library/Caches/a".utf8)), .breach(path: Array("Library/Caches/b".utf8)),
            ])
        #expect(log.entries.filter { $0.hasPrefix("slow start") }.count == 3)
        #expect(summaries.map(\.runID) == ["test-1", "test-2"])
    }

    @Test("the summary line counts what the remover removed and freed, keys sorted")
    func summaryLine() throws {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let backend = RecordingBackend(freed: [Array("tmp/x".utf8): 4096])
        let runner = makeRunner(clock: clock, backend: backend, collector: collector, dryRun: true)
        let log = EventLog()
        runner.register(ScriptedCleaner(name: "leftovers", behaviour: .remove(Array("tmp/x".utf8)), log: log))
        runner.register(ScriptedCleaner(name: "broken", behaviour: .fail("no"), log: log))
        runner.submit(.leftover(path: Array("tmp/x".utf8), rule: "cfnetwork-download"))
        runner.waitUntilIdle()
        let summary = try #require(collector.summaries.first)
        #expect(
            summary.jsonLine
                == "{\"cleaners\":[{\"error\":null,\"freed\":4096,\"name\":\"leftovers\",\"paths\":[\"tmp/x\"],\"removed\":1,"
                + "\"skipped\":{}},{\"error\":\"no\",\"freed\":0,\"name\":\"broken\",\"paths\":[],\"removed\":0,"
                + "\"skipped\":{}}],\"dry_run\":true,"
                + "\"event\":\"cleanup\",\"freed\":4096,\"removed\":1,\"run\":\"test-1\",\"seconds\":0,"
                + "\"time\":\"2027-01-15T08:00:00.000Z\",\"trigger\":\"leftover\",\"triggers\":[{\"kind\":\"leftover\","
                + "\"path\":\"tmp/x\",\"rule\":\"cfnetwork-download\"}]}")
        let request = try #require(backend.recorded.first)
        #expect(request.audit == AuditContext(rule: "r", trigger: "leftover", cleaner: "leftovers", run: "test-1"))
    }

    @Test("stop cancels the call going on, runs no other cleaner, reports nothing, and joins the runner's thread")
    func stopJoins() {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let log = EventLog()
        let never = Gate()
        runner.register(ScriptedCleaner(name: "hangs", behaviour: .hangIgnoringCancellation(never), log: log))
        runner.register(ScriptedCleaner(name: "after", behaviour: .succeed, log: log))
        runner.submit(.manual("first"))
        log.waitFor("hangs start manual")
        runner.stop()
        // Joined: the run is over, though the cleaner that ignores cancellation still hangs.
        runner.waitUntilIdle()
        runner.submit(.manual("after stop"))
        runner.waitUntilIdle()
        #expect(!log.entries.contains("after start manual"))
        #expect(!log.entries.contains { $0.contains("after stop") })
        #expect(collector.summaries.isEmpty, "a run cut short by stop reports nothing")
        never.open()
        log.waitFor("hangs end")
    }

    @Test("the default target is 80 % of the effective limit")
    func defaultTarget() {
        #expect(CleanupDirectory.defaultTarget(effectiveLimit: 1000) == 800)
        #expect(CleanupDirectory.defaultTarget(effectiveLimit: 7) == 5)
        #expect(CleanupDirectory.defaultTarget(effectiveLimit: UInt64.max) == 14_757_395_258_967_641_292)
        #expect(CleanupDirectory(path: [], used: 0, effectiveLimit: 200).target == 160)
    }
}
