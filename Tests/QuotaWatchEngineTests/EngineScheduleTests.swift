import QuotaWatchEngine
import Testing

@Suite("engine schedule, on a manual clock")
struct EngineScheduleTests {
    private let overflowed = LoopConditions(needsResync: true)

    /// Overflows that follow each resync by a second: the gap before each resync doubles from
    /// 0.5 s up to 30 s; a minute without a resync starts over at 0.
    @Test("resyncs back off 0, 0.5, 1, 2 … 30 s, and a quiet minute resets")
    func backoff() {
        var clock = ManualEngineClock()
        var schedule = EngineSchedule(now: clock.now)
        var gaps: [Duration] = []
        for _ in 0..<10 {
            schedule.overflowed(at: clock.now)
            gaps.append(schedule.resyncBackoff)
            // Not due a moment before the backoff ends, due at its end.
            let notBefore = schedule.resyncNotBefore
            if notBefore > clock.now {
                #expect(!schedule.due(overflowed, now: notBefore - 1).resync)
                #expect(schedule.wakeDeadline(overflowed) == notBefore)
            }
            #expect(schedule.due(overflowed, now: max(notBefore, clock.now)).resync)
            clock.advance(by: .nanoseconds(Int64(max(notBefore, clock.now) - clock.now)))
            schedule.resynced(at: clock.now)
            clock.advance(by: .seconds(1))
        }
        #expect(
            gaps == [0, 0.5, 1, 2, 4, 8, 16, 30, 30, 30].map { Duration.milliseconds(Int64($0 * 1000)) })

        clock.advance(by: .seconds(60))
        schedule.overflowed(at: clock.now)
        #expect(schedule.resyncBackoff == .zero)
        #expect(schedule.due(overflowed, now: clock.now).resync)
    }

    @Test("a waiting sync lets a backed-off resync run at once")
    func syncForcesResync() {
        var clock = ManualEngineClock()
        var schedule = EngineSchedule(now: clock.now)
        schedule.overflowed(at: clock.now)
        schedule.resynced(at: clock.now)
        // The backoff counts from the last resync: 0.5 s after it, so 0.4 s from now.
        clock.advance(by: .milliseconds(100))
        schedule.overflowed(at: clock.now)
        #expect(!schedule.due(overflowed, now: clock.now).resync)
        schedule.syncStarted(Array("m1".utf8), at: clock.now)
        #expect(schedule.due(overflowed, now: clock.now).resync)
    }

    @Test("a sync expires exactly at its timeout, and not once it has ended")
    func syncExpiry() {
        var clock = ManualEngineClock()
        var schedule = EngineSchedule(syncTimeout: .seconds(30), now: clock.now)
        schedule.syncStarted(Array("m1".utf8), at: clock.now)
        clock.advance(by: .seconds(10))
        schedule.syncStarted(Array("m2".utf8), at: clock.now)
        let quiet = LoopConditions()
        #expect(schedule.wakeDeadline(quiet) == clock.now + 20_000_000_000)

        clock.advance(by: .nanoseconds(19_999_999_999))
        #expect(schedule.due(quiet, now: clock.now).expiredSyncs.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(schedule.due(quiet, now: clock.now).expiredSyncs == [Array("m1".utf8)])
        schedule.syncEnded(Array("m1".utf8))
        #expect(schedule.wakeDeadline(quiet) == clock.now + 10_000_000_000)

        schedule.syncEnded(Array("m2".utf8))
        clock.advance(by: .seconds(60))
        #expect(schedule.due(quiet, now: clock.now).expiredSyncs.isEmpty)
        #expect(schedule.wakeDeadline(quiet) == nil)
    }

    @Test("the loop wakes at the earliest of settle, timers, poll, resync and sync deadlines")
    func deadlineOrdering() {
        var clock = ManualEngineClock()
        let start = clock.now
        var schedule = EngineSchedule(settle: .milliseconds(20), pollInterval: .seconds(2), now: start)
        let ms: UInt64 = 1_000_000
        #expect(schedule.wakeDeadline(LoopConditions()) == nil, "nothing timed: wait for messages only")
        #expect(schedule.wakeDeadline(LoopConditions(hasUnwatchedDirectories: true)) == start + 2000 * ms)
        #expect(
            schedule.wakeDeadline(LoopConditions(timerDeadline: start + 500 * ms, hasUnwatchedDirectories: true))
                == start + 500 * ms)
        let busy = LoopConditions(hasPendingWork: true, timerDeadline: start + 500 * ms, hasUnwatchedDirectories: true)
        #expect(schedule.wakeDeadline(busy) == start + 20 * ms)

        clock.advance(by: .milliseconds(19))
        #expect(!schedule.due(busy, now: clock.now).flush)
        clock.advance(by: .milliseconds(1))
        #expect(schedule.due(busy, now: clock.now).flush)
        schedule.flushed(at: clock.now)
        #expect(schedule.wakeDeadline(busy) == start + 40 * ms)

        schedule.syncStarted(Array("m".utf8), at: clock.now)
        #expect(schedule.wakeDeadline(LoopConditions(timerDeadline: start + 40_000 * ms)) == clock.now + 30_000 * ms)

        clock.advance(by: .milliseconds(1980))
        let due = schedule.due(busy, now: clock.now)
        #expect(due.poll && due.flush && !due.resync)
        schedule.polled(at: clock.now)
        #expect(!schedule.due(busy, now: clock.now).poll)
        #expect(schedule.due(busy, now: clock.now + 2000 * ms).poll)
    }

    /// Changes handed over before this moment wait for it in the mailbox: no flush comes sooner.
    @Test("the earliest flush is the settle period after the last, and a flush is due exactly then")
    func earliestFlushFollowsTheLastFlush() {
        var clock = ManualEngineClock()
        var schedule = EngineSchedule(settle: .milliseconds(20), now: clock.now)
        let pending = LoopConditions(hasPendingWork: true)
        clock.advance(by: .seconds(1))
        schedule.flushed(at: clock.now)
        #expect(schedule.earliestFlush == clock.now + 20_000_000)
        #expect(!schedule.due(pending, now: schedule.earliestFlush - 1).flush)
        #expect(schedule.due(pending, now: schedule.earliestFlush).flush)
        #expect(schedule.wakeDeadline(pending) == schedule.earliestFlush)
    }
}
