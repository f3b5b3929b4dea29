import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Testing

@Suite("Cleanup runner: a long run reports how far it has got")
struct CleanupProgressTests {
    @Test("each interval with removals answered reports the names removed and bytes freed so far")
    func reportsWhileTheCleanerRuns() throws {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let reports = BlockingState<[CleanupProgressReport]>([])
        let freed = Dictionary(uniqueKeysWithValues: (1...3).map { (Array("cache/\($0)".utf8), UInt64($0) * 4096) })
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: .seconds(30), dryRun: false, progressInterval: .seconds(1)),
            backend: RecordingBackend(freed: freed), clock: clock, instance: "test",
            prepare: { _ in CleanupInputs(level: .warning) }, completion: { collector.receive($0) },
            reportProgress: { report in reports.withLockWakingWaiters { $0.append(report) } })
        let log = EventLog()
        let steps = Steps()
        runner.register(SteppingCleaner(steps: steps, log: log))
        runner.submit(.manual("big"))

        // The timeout's timer and the reporter both sleep; one removal, then a second goes by.
        clock.waitForSleeps(2)
        steps.give()
        log.waitFor("removed 1")
        clock.advance(.seconds(1))
        clock.fireAll()
        let first = try #require(reports.wait { $0.first })
        #expect(first.removed == 1 && first.freedBytes == 4096 && first.answered == 1, "\(first)")
        #expect(first.cleaner == "stepping" && first.runID == "test-1" && first.trigger == .manual("big"))
        #expect(first.seconds == 1 && !first.dryRun)
        let line = ContractJSON.encodedString(first.event(root: nil))
        #expect(line.contains(#""event":"cleanup_progress""#) && line.contains(#""freed":4096"#), "\(line)")

        // Two more removals in the next second: the report has all three.
        clock.waitForSleeps(4)
        steps.give()
        steps.give()
        log.waitFor("removed 3")
        clock.advance(.seconds(1))
        clock.fireAll()
        let second = try #require(reports.wait { $0.count >= 2 ? $0[1] : nil })
        #expect(second.removed == 3 && second.freedBytes == 6 * 4096 && second.answered == 3, "\(second)")

        steps.finish()
        #expect(collector.waitFor(1).removedCount == 3)
    }
}
