import Testing

@testable import QuotaWatchEngine

@Suite("policy timers")
struct DeadlineQueueTests {
    @Test("tasks come out earliest first; a rescheduled or cancelled task only at its deadline in force")
    func order() {
        var queue = DeadlineQueue<String>()
        for (task, deadline) in [("c", 30), ("a", 10), ("e", 50), ("b", 20), ("d", 40)] as [(String, UInt64)] {
            queue.schedule(task, at: deadline)
        }
        queue.schedule("a", at: 35)
        queue.cancel("d")
        #expect(queue.nextDeadline == 10, "a superseded entry may wake the loop once, early")
        #expect(queue.takeDue(now: 15).isEmpty)
        #expect(queue.takeDue(now: 45) == ["b", "c", "a"])
        #expect(queue.takeDue(now: 100) == ["e"])
        #expect(queue.isEmpty && queue.nextDeadline == nil)
    }

    @Test("the policy's deadline wakes the engine loop")
    func wakesTheLoop() {
        let schedule = EngineSchedule(now: 0)
        #expect(schedule.wakeDeadline(LoopConditions()) == nil, "idle: no wake-up at all")
        #expect(schedule.wakeDeadline(LoopConditions(policyDeadline: 5_000_000_000)) == 5_000_000_000)
        #expect(schedule.wakeDeadline(LoopConditions(timerDeadline: 7, policyDeadline: 9)) == 7)
    }
}
