import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// What the engine hands the writer: an event as emitted (encoded on the writer's thread), or
/// a sample already taken.
enum HistoryItem: Sendable {
    case event(ObservedEvent, WallTime)
    case sample(HistorySample)
}

/// The bounded queue between the engine thread and the writer thread.
///
/// The engine only appends under a lock it never waits long for; the writer takes everything
/// at once. An item counts against the bound until the writer has written it, so while the
/// database is unavailable the items it holds for the next attempt keep the bound too: when
/// `capacity` items are outstanding, new ones are dropped and counted.
final class HistoryQueue: Sendable {
    private struct State {
        var items: [HistoryItem] = []
        var outstanding = 0
        var dropped: UInt64 = 0
        var closed = false
    }

    let capacity: Int
    private let state = BlockingState(State())

    init(capacity: Int) { self.capacity = capacity }

    /// Appends `item`, or counts it as dropped when the queue is full. Never waits.
    func push(_ item: HistoryItem) {
        let wasEmpty = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.outstanding < capacity else {
                state.dropped += 1
                return false
            }
            state.outstanding += 1
            state.items.append(item)
            return state.items.count == 1
        }
        // One wake per batch: the writer takes everything queued when it wakes.
        if wasEmpty { state.wakeWaiters() }
    }

    /// Everything queued, waiting until something is or `deadline` passes (nil: no deadline);
    /// `closed` once ``close()`` was called (the items queued before it are still returned).
    func take(waitingUntil deadline: ContinuousClock.Instant?) -> (items: [HistoryItem], closed: Bool, dropped: UInt64)
    {
        state.waitUntil(deadline: deadline) { !$0.items.isEmpty || $0.closed }
        return state.withLock { state in
            let items = state.items
            state.items.removeAll(keepingCapacity: true)
            return (items, state.closed, state.dropped)
        }
    }

    /// The writer has written (or given up on) `count` items taken earlier.
    func finished(_ count: Int) { state.withLock { $0.outstanding -= count } }

    /// No more items are accepted; the writer drains what is there and stops.
    func close() {
        state.withLockWakingWaiters { $0.closed = true }
    }
}
