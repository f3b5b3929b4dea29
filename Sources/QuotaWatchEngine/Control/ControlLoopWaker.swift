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

    /// Called by the loop before it looks at what woke it.
    func reset() {
        pending.store(false, ordering: .releasing)
        event.drain()
    }

    func close() { event.close() }
}
