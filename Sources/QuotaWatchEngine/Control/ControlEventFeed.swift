import Dispatch
import QuotaWatchCore
import QuotaWatchPolicy
import Synchronization

/// The control socket's event stream: every event the engine emits, as its JSON line, to each
/// client that sent `{"command":"events"}` (`quotawatch watch` attached to a daemon).
///
/// The engine only ever appends to a bounded queue per subscriber and returns: a subscriber
/// that reads too slowly loses its oldest lines, never the engine's time, and is told how many
/// with a `{"event":"dropped","count":N}` line before the next ones it gets.
package final class ControlEventFeed: Sendable {
    /// Lines kept per subscriber before the oldest are dropped.
    package let capacity: Int
    /// The daemon's ROOT, for the `root` field of the lines the feed writes itself; nil for a
    /// feed that serves no root (a test's).
    package let root: String?
    private let subscribers = Mutex<[UInt64: Subscription]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let subscriberCount = Atomic<Int>(0)
    /// Called when a subscriber's empty queue gets a line: the control socket's serving
    /// thread waits in `poll`, not on the queue, and is woken through this.
    private let onReady: @Sendable () -> Void

    package convenience init(capacity: Int = 4096, root: String? = nil) {
        self.init(capacity: capacity, root: root, onReady: {})
    }

    init(capacity: Int, root: String?, onReady: @escaping @Sendable () -> Void) {
        self.capacity = capacity
        self.root = root
        self.onReady = onReady
    }

    /// The first line a subscriber gets:
    /// `{"capacity":N,"event":"subscribed","root":…,"version":N}`.
    var subscribedLine: String {
        ContractJSON.encodedString(
            ContractEvent(.subscribed(capacity: Int64(capacity), version: ContractEvent.version), root: root))
    }

    /// Says that `count` lines were lost before the ones that follow it.
    static func droppedLine(_ count: Int, root: String?) -> String {
        ContractJSON.encodedString(ContractEvent(.dropped(count: Int64(count)), root: root))
    }

    /// Cheap enough to ask for every event: the engine encodes no line when nobody listens.
    package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// Hands `line` (one JSON object, no newline) to every subscriber. O(subscribers).
    package func publish(_ line: String) {
        let current = subscribers.withLock { Array($0.values) }
        for subscription in current { subscription.append(line, capacity: capacity) }
    }

    func subscribe() -> Subscription {
        let subscription = Subscription(
            id: nextID.add(1, ordering: .relaxed).newValue, root: root, onReady: onReady)
        subscribers.withLock { $0[subscription.id] = subscription }
        subscriberCount.add(1, ordering: .relaxed)
        return subscription
    }

    func unsubscribe(_ subscription: Subscription) {
        let removed = subscribers.withLock { $0.removeValue(forKey: subscription.id) != nil }
        if removed { subscriberCount.subtract(1, ordering: .relaxed) }
    }

    /// Wakes every subscriber to end its stream (the server is stopping).
    func closeAll() {
        let current = subscribers.withLock { Array($0.values) }
        for subscription in current { subscription.close() }
    }

    /// One subscriber's queue, filled by the engine and drained by the serving thread.
    final class Subscription: Sendable {
        let id: UInt64
        let root: String?
        private let queue = Mutex(Queue())
        private let ready = DispatchSemaphore(value: 0)
        private let onReady: @Sendable () -> Void

        struct Queue {
            var lines: [String] = []
            var dropped = 0
            var isClosed = false
        }

        init(id: UInt64, root: String? = nil, onReady: @escaping @Sendable () -> Void = {}) {
            self.id = id
            self.root = root
            self.onReady = onReady
        }

        func append(_ line: String, capacity: Int) {
            let wasEmpty = queue.withLock { queue in
                let wasEmpty = queue.lines.isEmpty
                queue.lines.append(line)
                if queue.lines.count > capacity {
                    let excess = queue.lines.count - capacity
                    queue.lines.removeFirst(excess)
                    queue.dropped += excess
                }
                return wasEmpty
            }
            if wasEmpty {
                ready.signal()
                onReady()
            }
        }

        func close() {
            queue.withLock { $0.isClosed = true }
            ready.signal()
        }

        /// Waits up to `timeout` for lines; returns what is queued (a `dropped` line first when
        /// some were lost), or nil once closed.
        func next(timeout: Duration) -> [String]? {
            _ = ready.wait(timeout: .now() + .nanoseconds(Int(timeout.clampedNanoseconds)))
            return take()
        }

        /// What is queued now (a `dropped` line first when some were lost), without waiting:
        /// empty when nothing is, nil once closed.
        func take() -> [String]? {
            queue.withLock { queue in
                if queue.isClosed { return nil }
                var lines = queue.lines
                if queue.dropped > 0 {
                    lines.insert(ControlEventFeed.droppedLine(queue.dropped, root: root), at: 0)
                }
                queue.lines.removeAll(keepingCapacity: true)
                queue.dropped = 0
                return lines
            }
        }
    }
}
