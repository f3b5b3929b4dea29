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
    let steps: AsyncStream<Void>
    let log: EventLog

    func clean(_ context: CleanupContext) async throws -> CleanupResult {
        var result = CleanupResult()
        var count = 0
        for await _ in steps {
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
    func progressKeepsTheCleaner() async {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        // Each new sleep of the timer, and the run's end, in the order they happen.
        let (signals, signal) = AsyncStream<String>.makeStream()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: .seconds(30), dryRun: false), backend: RecordingBackend(),
            clock: clock, instance: "test", prepare: { _ in CleanupInputs(level: .warning) },
            completion: { summary in
                collector.receive(summary)
                signal.yield("done")
            })
        let forward = Task {
            for await _ in clock.sleeps { signal.yield("sleep") }
        }
        defer { forward.cancel() }
        let log = EventLog()
        let (steps, step) = AsyncStream<Void>.makeStream()
        runner.register(SteppingCleaner(steps: steps, log: log))
        runner.submit(.manual("big"))
        var events = signals.makeAsyncIterator()
        #expect(await events.next() == "sleep")
        // Three whole timeouts go by, a removal answered in each: the timer waits again.
        for round in 1...3 {
            step.yield()
            await log.waitFor("removed \(round)")
            clock.advance(.seconds(30))
            clock.fireAll()
            let next = await events.next()
            #expect(next == "sleep", "round \(round): the progressing cleaner was stopped")
            if next != "sleep" { break }
        }
        // Then nothing for a whole timeout: the stall ends the call.
        clock.fireAll()
        await runner.waitUntilIdle()
        step.finish()
        let report = collector.summaries.first?.cleaners.first
        // What it removed before the stall is said, though its result is dropped.
        #expect(report?.error == "timed out after 30.0 seconds, having removed 3 (0 B freed; the audit log lists them)")
        #expect(log.entries == ["removed 1", "removed 2", "removed 3"])
    }

    @Test("with a short configured timeout, a cleaner taking several timeouts in all ends in one go")
    func shortTimeoutLargeJob() async {
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
        await runner.waitUntilIdle()
        let report = collector.summaries.first?.cleaners.first
        #expect(ContinuousClock.now - started > timeout * 2, "the job must outlast the timeout to prove anything")
        #expect(report?.error == nil)
        #expect(report?.removed.count == 60)
        #expect(backend.removed == 60)
    }
}
