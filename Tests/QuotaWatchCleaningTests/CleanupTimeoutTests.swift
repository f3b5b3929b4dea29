import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization
import Testing

/// A cleaner that removes one name per step the test gives, until the steps end.
struct SteppingCleaner: Cleaner {
    let name = "stepping"
    let steps: Steps
    let log: EventLog

    func clean(_ context: CleanupContext) throws -> CleanupResult {
        var result = CleanupResult()
        var count = 0
        while steps.wait(for: count + 1) {
            count += 1
            let path = Array("cache/\(count)".utf8)
            _ = context.remover.remove(path: path, identity: FileIdentity(device: 1, inode: UInt64(count)), rule: "r")
            result.removed.append(RemovedItem(path: path, freedBytes: 1))
            log.append("removed \(count)")
        }
        return result
    }
}

/// Removes names slowly, as a large eviction on a busy disk does: each takes `pace`.
final class SlowBackend: RemovalBackend {
    let pace: Duration
    private let count = Mutex(0)

    init(pace: Duration) { self.pace = pace }

    var removed: Int { count.withLock { $0 } }

    func remove(_ request: RemovalRequest) -> DeletionOutcome {
        // The work being timed, not a wait for another thread.
        let deadline = ContinuousClock.now + pace
        while ContinuousClock.now < deadline { usleep(1000) }
        count.withLock { $0 += 1 }
        return .removed(Removal(dryRun: false))
    }
}

@Suite("Cleanup runner: the timeout bounds a stall, not a large job")
struct CleanupTimeoutTests {
    @Test("a cleaner answering removals past the timeout is not killed; once it stalls a whole timeout, it is")
    func progressKeepsTheCleaner() {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: .seconds(30), dryRun: false), backend: RecordingBackend(),
            clock: clock, instance: "test", prepare: { _ in CleanupInputs(level: .warning) },
            completion: { collector.receive($0) })
        let log = EventLog()
        let steps = Steps()
        runner.register(SteppingCleaner(steps: steps, log: log))
        runner.submit(.manual("big"))
        // The timer's first sleep; then each new sleep means the timer waits again.
        clock.waitForSleeps(1)
        // Three whole timeouts go by, a removal answered in each: the timer waits again.
        for round in 1...3 {
            steps.give()
            log.waitFor("removed \(round)")
            clock.advance(.seconds(30))
            clock.fireAll()
            // Either the timer sleeps again (the cleaner kept) or the run ends (it was stopped).
            let next = waitForSleepOrSummary(clock, sleeps: round + 1, collector)
            #expect(next == "sleep", "round \(round): the progressing cleaner was stopped")
            if next != "sleep" { break }
        }
        // Then nothing for a whole timeout: the stall ends the call.
        clock.fireAll()
        runner.waitUntilIdle()
        steps.finish()
        let report = collector.summaries.first?.cleaners.first
        // What it removed before the stall is said, though its result is dropped.
        #expect(report?.error == "timed out after 30.0 seconds, having removed 3 (0 B freed; the audit log lists them)")
        #expect(log.entries == ["removed 1", "removed 2", "removed 3"])
    }

    /// "sleep" once the clock's `sleeps`-th sleep has begun, "done" once the run has ended.
    private func waitForSleepOrSummary(
        _ clock: ManualCleanupClock, sleeps: Int, _ collector: SummaryCollector
    )
        -> String
    {
        let outcome = BlockingState<String?>(nil)
        let sleep = JoinableThread(name: "sleep-watch") {
            clock.waitForSleeps(sleeps)
            outcome.withLockWakingWaiters { if $0 == nil { $0 = "sleep" } }
        }
        let done = JoinableThread(name: "summary-watch") {
            _ = collector.waitFor(1)
            outcome.withLockWakingWaiters { if $0 == nil { $0 = "done" } }
        }
        let first = outcome.wait { $0 }!
        // The watcher that lost still waits: leave it (it holds nothing the test reads).
        _ = (sleep, done)
        return first
    }

    @Test("with a short configured timeout, a cleaner taking several timeouts in all ends in one go")
    func shortTimeoutLargeJob() {
        let timeout = Duration.seconds(1)
        let backend = SlowBackend(pace: .milliseconds(50))
        let collector = SummaryCollector()
        let candidates = (0..<60).map { index in
            CleanupCandidate(
                path: Array("tmp/\(index)".utf8), device: 1, inode: UInt64(index + 1), allocatedBytes: 1,
                apparentBytes: 1, modifiedNanoseconds: Int64(index), rule: "r")
        }
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: timeout, dryRun: false), backend: backend, instance: "test",
            prepare: { _ in CleanupInputs(level: .warning, candidates: candidates) },
            completion: { collector.receive($0) })
        runner.register(LeftoverCleaner())
        let started = ContinuousClock.now
        runner.submit(.manual("large"))
        runner.waitUntilIdle()
        let report = collector.summaries.first?.cleaners.first
        #expect(ContinuousClock.now - started > timeout * 2, "the job must outlast the timeout to prove anything")
        #expect(report?.error == nil)
        #expect(report?.removed.count == 60)
        #expect(backend.removed == 60)
    }
}
