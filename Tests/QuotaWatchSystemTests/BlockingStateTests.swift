import Glibc
import Testing

@testable import QuotaWatchSystem

@Suite("BlockingState: the one blocking queue")
struct BlockingStateTests {
    private struct Flags {
        var asked = false
        var answered = false
    }

    /// A thread starting to wait just after a wake must not take the wake meant for the one
    /// already waiting: with one shared semaphore it did, and both waited for ever (a hook
    /// worker and its `stop()`).
    @Test("a wake reaches the waiter blocked at that moment, not one that comes after")
    func wakeIsNotStolenByALaterWaiter() {
        let flags = BlockingState(Flags())
        let answerer = JoinableThread(name: "test-answerer") {
            flags.waitUntil { $0.asked }
            flags.withLockWakingWaiters { $0.answered = true }
        }
        // Waits (without sleeping) until the answerer is blocked.
        while flags.blockedWaiters == 0 { sched_yield() }
        flags.withLockWakingWaiters { $0.asked = true }
        #expect(flags.waitUntil(deadline: .now + .seconds(20)) { $0.answered })
        answerer.join()
    }

    @Test("a wait with a deadline returns nil once it has passed, and leaves no waiter behind")
    func deadlinePasses() {
        let flags = BlockingState(Flags())
        let result = flags.wait(until: .now + .milliseconds(20)) { $0.asked ? 1 : nil }
        #expect(result == nil)
        #expect(flags.blockedWaiters == 0)
        flags.withLockWakingWaiters { $0.asked = true }
        #expect(flags.wait(until: .now) { $0.asked ? 1 : nil } == 1, "a condition that holds needs no time")
    }
}
