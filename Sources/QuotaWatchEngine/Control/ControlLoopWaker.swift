import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Wakes ``ControlLoop``'s thread from `poll`: a reply is ready, a subscriber has lines, or
/// the server is stopping. Wake-ups that come while one is already pending cost nothing.
final class ControlLoopWaker: Sendable {
    let event: WakeupEvent
    private let pending = Atomic<Bool>(false)

    init() throws(Errno) { event = try WakeupEvent() }

    func wake() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) { event.wake() }
    }

    /// Called by the loop before it looks at what woke it. Drained first: a wake-up drained
    /// after the flag was cleared would leave it set with nothing to read, and every wake-up
    /// after it would be skipped until something else woke the loop.
    func reset() {
        event.drain()
        pending.store(false, ordering: .releasing)
    }

    func close() { event.close() }
}
