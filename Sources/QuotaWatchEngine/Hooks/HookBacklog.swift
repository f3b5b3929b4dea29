import QuotaWatchCore
import QuotaWatchPolicy

/// The events waiting for one hook, and the rules for letting one in: the rate limit per path,
/// coalescing per path, rule and kind, and the bound that drops the oldest. Pure, so its timing is
/// tested with made-up instants.
struct HookBacklog {
    /// What coalescing and the rate limit tell apart. The kind is part of it: a `quota_ok`
    /// must not be swallowed because the `quota_breach` it ends was sent a moment before; so is
    /// the rule: two rules on one directory are two alerts, and one rule's `quota_ok` must not
    /// replace the other's.
    struct Key: Hashable {
        var kind: String
        var path: [UInt8]?
        var rule: String?

        init(_ event: HookEvent) {
            kind = event.kind
            path = event.path
            rule = event.rule
        }
    }

    enum Admission: Equatable {
        case queued
        /// Replaced a waiting event with the same path and kind.
        case coalesced
        /// Queued, and the oldest waiting event was dropped to make room.
        case queuedDroppingOldest
        /// Dropped: an event with this path and kind was let in less than the rate limit ago.
        case rateLimited
    }

    let limit: Int
    let coalesces: Bool
    let rateLimit: Duration?

    private var waiting: [UInt64: HookEvent] = [:]
    /// Sequence numbers in arrival order; those no longer in `waiting` are skipped.
    private var order: [UInt64] = []
    private var orderStart = 0
    private var nextSequence: UInt64 = 0
    private var waitingByKey: [Key: UInt64] = [:]
    private var lastLetIn: [Key: Moment] = [:]
    private var lastLetInPruneSize = 64

    private(set) var dropped = 0
    private(set) var rateLimited = 0
    private(set) var coalesced = 0

    /// `limit` below 1 is taken as 1: the event that arrives while a run is under way can wait.
    init(limit: Int, coalesces: Bool, rateLimit: Duration?) {
        self.limit = max(1, limit)
        self.coalesces = coalesces
        self.rateLimit = rateLimit
    }

    init(for hook: HookSpec) {
        self.init(limit: hook.queueLimit, coalesces: hook.coalescesPerPath, rateLimit: hook.rateLimitPerPath)
    }

    var count: Int { waiting.count }
    /// How many (path, kind) pairs the rate limit remembers.
    var rateLimitRecordCount: Int { lastLetIn.count }
    var isEmpty: Bool { waiting.isEmpty }

    mutating func add(_ event: HookEvent, at now: Moment) -> Admission {
        let key = Key(event)
        if let rateLimit {
            if let last = lastLetIn[key], now - last < rateLimit {
                rateLimited += 1
                return .rateLimited
            }
            lastLetIn[key] = now
            pruneRateLimitRecords(now: now, rateLimit: rateLimit)
        }
        if coalesces, let sequence = waitingByKey[key] {
            waiting[sequence] = event
            coalesced += 1
            return .coalesced
        }
        var admission = Admission.queued
        if waiting.count >= limit {
            _ = removeOldest()
            dropped += 1
            admission = .queuedDroppingOldest
        }
        let sequence = nextSequence
        nextSequence += 1
        waiting[sequence] = event
        order.append(sequence)
        if coalesces { waitingByKey[key] = sequence }
        return admission
    }

    /// The oldest waiting event, removed from the backlog.
    mutating func next() -> HookEvent? { removeOldest() }

    /// Empties the backlog; returns how many events were waiting.
    mutating func removeAll() -> Int {
        let count = waiting.count
        waiting.removeAll()
        waitingByKey.removeAll()
        order.removeAll()
        orderStart = 0
        return count
    }

    private mutating func removeOldest() -> HookEvent? {
        while orderStart < order.count {
            let sequence = order[orderStart]
            orderStart += 1
            guard let event = waiting.removeValue(forKey: sequence) else { continue }
            if coalesces { waitingByKey[Key(event)] = nil }
            compactOrder()
            return event
        }
        compactOrder()
        return nil
    }

    /// Drops the consumed front of `order` once it is most of the array: amortised O(1).
    private mutating func compactOrder() {
        if orderStart > 32 && orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }

    /// Forgets paths last let in more than a rate-limit period ago, whenever the record has
    /// doubled since the last time: amortised O(1) per event, and memory bounded by the paths
    /// active within one period.
    private mutating func pruneRateLimitRecords(now: Moment, rateLimit: Duration) {
        guard lastLetIn.count > lastLetInPruneSize else { return }
        lastLetIn = lastLetIn.filter { now - $0.value < rateLimit }
        lastLetInPruneSize = max(64, lastLetIn.count * 2)
    }
}
