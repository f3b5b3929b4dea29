import Testing

@testable import QuotaWatchEngine

/// SIGHUPs in a storm become a few reloads, not one per signal.
@Suite("SIGHUP coalescing")
struct ReloadCoalescingTests {
    @Test("a thousand SIGHUPs before the engine looks are one reload message")
    func mailboxCoalesces() {
        let mailbox = Mailbox()
        for _ in 0..<1000 { mailbox.requestReload() }
        mailbox.post(.stop)
        for _ in 0..<1000 { mailbox.requestReload() }
        let taken = mailbox.take(until: nil)
        let reloads = taken.filter { if case .reload = $0 { true } else { false } }.count
        #expect(reloads == 1)
        #expect(taken.count == 2)
        // The flag was drained with the take: nothing is left to hand over.
        #expect(mailbox.take(until: .now).isEmpty)
    }

    @Test("a reload waits for the SIGHUPs to settle, and at most a second in a storm")
    func scheduleSettlesAndCaps() {
        var clock = ManualEngineClock()
        var schedule = EngineSchedule(now: clock.now)
        let idle = LoopConditions()
        #expect(schedule.reloadDeadline == nil)
        #expect(!schedule.due(idle, now: clock.now).reload)

        // One SIGHUP: due after the settle period, and the loop wakes for it.
        schedule.reloadRequested(at: clock.now)
        let settle = EngineSchedule.reloadSettle.nanoseconds
        #expect(schedule.wakeDeadline(idle) == clock.now + settle)
        #expect(!schedule.due(idle, now: clock.now + settle - 1).reload)
        #expect(schedule.due(idle, now: clock.now + settle).reload)
        schedule.reloaded()
        #expect(schedule.reloadDeadline == nil)

        // A storm, one every 2 ms for 5 s: reloads come once a second, not 2 500 times.
        var reloads = 0
        for _ in 0..<2500 {
            clock.advance(by: .milliseconds(2))
            schedule.reloadRequested(at: clock.now)
            if schedule.due(idle, now: clock.now).reload {
                schedule.reloaded()
                reloads += 1
            }
        }
        #expect((4...5).contains(reloads), "\(reloads) reloads during the storm")
        // The last SIGHUPs are not lost: one more reload once the storm has settled.
        clock.advance(by: EngineSchedule.reloadSettle)
        #expect(schedule.due(idle, now: clock.now).reload)
    }
}
