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
///
/// It also keeps the newest ``recentCapacity`` lines whether or not anyone listens, so that a
/// view attaching later can start with them (`{"command":"events","recent":N}`). A subscriber
/// gets them and then every line published after them, none twice and none missing: the copy
/// and the subscription are made under the lock that each line is remembered under.
package final class ControlEventFeed: Sendable {
    /// Lines kept per subscriber before the oldest are dropped.
    package let capacity: Int
    /// Lines remembered for a subscriber that asks for the recent ones: as many as the view's
    /// log keeps.
    package let recentCapacity: Int
    /// The daemon's ROOT, for the `root` field of the lines the feed writes itself; nil for a
    /// feed that serves no root (a test's).
    package let root: String?
    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)
    private let subscriberCount = Atomic<Int>(0)
    /// Called when a subscriber's empty queue gets a line: the control socket's serving
    /// thread waits in `poll`, not on the queue, and is woken through this.
    private let onReady: @Sendable () -> Void

    private struct State {
        var subscribers: [UInt64: Subscription] = [:]
        /// The newest lines remembered, oldest first; at most ``recentCapacity``, and at most
        /// ``recentBytes`` bytes together.
        var recent: [String] = []
        var recentByteCount = 0
    }

    package static let defaultRecentCapacity = 200
    /// The remembered lines go to a new subscriber in one piece, which must stay well under what
    /// a connection may hold waiting (``ControlConnection/maximumQueuedBytes``): a cleanup's line
    /// lists its paths, so 200 of them could be far more.
    static let recentBytes = 1 << 20

    package convenience init(capacity: Int = 4096, root: String? = nil, recentCapacity: Int = defaultRecentCapacity) {
        self.init(capacity: capacity, root: root, recentCapacity: recentCapacity, onReady: {})
    }

    init(
        capacity: Int, root: String?, recentCapacity: Int = defaultRecentCapacity,
        onReady: @escaping @Sendable () -> Void
    ) {
        self.capacity = capacity
        self.root = root
        self.recentCapacity = max(0, recentCapacity)
        self.onReady = onReady
    }

    /// The first line a subscriber gets:
    /// `{"capacity":N,"event":"subscribed","root":…,"version":N}`.
    var subscribedLine: String { subscribedLine(recent: nil) }

    /// The first line a subscriber gets; `recent` (when it asked for the recent lines) says how
    /// many of them follow before the first line published after it subscribed.
    func subscribedLine(recent: Int?) -> String {
        ContractJSON.encodedString(
            ContractEvent(
                .subscribed(capacity: Int64(capacity), version: ContractEvent.version, recent: recent.map(Int64.init)),
                root: root))
    }

    /// Says that `count` lines were lost before the ones that follow it.
    static func droppedLine(_ count: Int, root: String?) -> String {
        ContractJSON.encodedString(ContractEvent(.dropped(count: Int64(count)), root: root))
    }

    /// Whether anyone is subscribed now.
    package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// Hands `line` (one JSON object, no newline) to every subscriber, and remembers it.
    /// O(subscribers).
    package func publish(_ line: String) { publish(line, remembering: line) }

    /// Hands `line` to every subscriber and remembers `remembered` in its place for later
    /// subscribers: nil for a line that is of no use later (a cleanup's progress), or the line
    /// dated when it carries no time of its own. O(subscribers).
    package func publish(_ line: String, remembering remembered: String?) {
        let current = state.withLock { state in
            if let remembered, recentCapacity > 0 {
                state.recent.append(remembered)
                state.recentByteCount += remembered.utf8.count + 1
                var dropped = 0
                while dropped < state.recent.count,
                    state.recent.count - dropped > recentCapacity || state.recentByteCount > Self.recentBytes
                {
                    state.recentByteCount -= state.recent[dropped].utf8.count + 1
                    dropped += 1
                }
                state.recent.removeFirst(dropped)
            }
            return Array(state.subscribers.values)
        }
        for subscription in current { subscription.append(line, capacity: capacity) }
    }

    /// The newest lines remembered, oldest first.
    package var recentLines: [String] { state.withLock { $0.recent } }

    func subscribe() -> Subscription { subscribe(recent: 0).subscription }

    /// Subscribes, with the newest `recent` lines remembered (fewer when fewer are): every line
    /// published is either among them or queued for the subscription, never both.
    func subscribe(recent: Int) -> (subscription: Subscription, recent: [String]) {
        let subscription = Subscription(
            id: nextID.add(1, ordering: .relaxed).newValue, root: root, onReady: onReady)
        let lines = state.withLock { state in
            state.subscribers[subscription.id] = subscription
            return Array(state.recent.suffix(max(0, recent)))
        }
        subscriberCount.add(1, ordering: .relaxed)
        return (subscription, lines)
    }

    func unsubscribe(_ subscription: Subscription) {
        let removed = state.withLock { $0.subscribers.removeValue(forKey: subscription.id) != nil }
        if removed { subscriberCount.subtract(1, ordering: .relaxed) }
    }

    /// Wakes every subscriber to end its stream (the server is stopping).
    func closeAll() {
        let current = state.withLock { Array($0.subscribers.values) }
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
