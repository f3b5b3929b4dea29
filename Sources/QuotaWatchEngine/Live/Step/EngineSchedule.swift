import Foundation
import QuotaWatchCore

/// Where the engine reads the time: nanoseconds since an origin of the clock's choosing, the
/// unit ``LiveTree`` takes. The daemon uses ``MonotonicEngineClock``; tests move a
/// ``ManualEngineClock`` by hand.
package protocol EngineClock {
    var now: UInt64 { get }
}

/// The monotonic clock, counted from when it was made.
package struct MonotonicEngineClock: EngineClock, Sendable {
    private let origin = ContinuousClock.now

    package init() {}

    package var now: UInt64 { nanoseconds(of: ContinuousClock.now) }

    /// The clock's reading at `instant`.
    package func nanoseconds(of instant: ContinuousClock.Instant) -> UInt64 {
        origin.duration(to: instant).nanoseconds
    }

    /// The instant of a reading, for waiting until it.
    package func instant(of nanoseconds: UInt64) -> ContinuousClock.Instant {
        origin.advanced(by: .nanoseconds(Int64(clamping: nanoseconds)))
    }

    /// Seconds from the reading `start` until now, for the events that say how long something took.
    func seconds(since start: UInt64) -> Double {
        let now = self.now
        return Double(now - min(start, now)) / 1e9
    }
}

/// A clock that moves only when told to.
package struct ManualEngineClock: EngineClock, Sendable {
    package private(set) var now: UInt64

    package init(now: UInt64 = 1_000_000_000) { self.now = now }

    package mutating func advance(by duration: Duration) { now += duration.nanoseconds }
}

/// What the loop knows about the tree when it decides what is due.
package struct LoopConditions: Sendable, Equatable {
    /// Names or directories wait to be stat'ed.
    package var hasPendingWork = false
    /// The tree's earliest timer (late re-stats, unpaired moves), if any.
    package var timerDeadline: UInt64?
    /// Some subtree has no watch and is polled.
    package var hasUnwatchedDirectories = false
    /// An overflow left the tree untrustworthy.
    package var needsResync = false
    /// The policy layer's earliest timer (a free-space reading, a budget re-split), if any.
    package var policyDeadline: UInt64?
    /// When the next slice of the verification sweep is due, if it is on and may run.
    package var verifyDeadline: UInt64?

    package init(
        hasPendingWork: Bool = false, timerDeadline: UInt64? = nil, hasUnwatchedDirectories: Bool = false,
        needsResync: Bool = false, policyDeadline: UInt64? = nil, verifyDeadline: UInt64? = nil
    ) {
        self.policyDeadline = policyDeadline
        self.verifyDeadline = verifyDeadline
        self.hasPendingWork = hasPendingWork
        self.timerDeadline = timerDeadline
        self.hasUnwatchedDirectories = hasUnwatchedDirectories
        self.needsResync = needsResync
    }
}

/// The work one turn of the loop should do now.
package struct DueWork: Sendable, Equatable {
    package var flush = false
    package var poll = false
    package var resync = false
    /// Syncs whose marker has not come back in time, to be answered with an error.
    package var expiredSyncs: [[UInt8]] = []
    /// The config is to be read again: one or more SIGHUPs have settled.
    package var reload = false

    package init(
        flush: Bool = false, poll: Bool = false, resync: Bool = false, expiredSyncs: [[UInt8]] = [],
        reload: Bool = false
    ) {
        self.flush = flush
        self.poll = poll
        self.resync = resync
        self.expiredSyncs = expiredSyncs
        self.reload = reload
    }
}

/// Every decision of the engine loop that depends on time, apart from the loop: when to
/// wake, whether the settle period has passed, when to poll, when a resync may run after
/// overflows, when a sync has waited too long. Pure: `now` is always passed in, so tests
/// drive it with a manual clock and the engine with the monotonic one.
package struct EngineSchedule: Sendable {
    /// Changes to one file are stat'ed at most once per this period.
    package let settle: Duration
    /// Subtrees without a watch are re-listed this often.
    package let pollInterval: Duration
    /// A marker that has not come back by then never will (its event was lost with an
    /// overflow that is still backing off, say): the request gets an error, not a hang.
    package let syncTimeout: Duration

    /// Overflows this close to the last resync back off; a quieter gap starts over at zero.
    package static let overflowMemory: Duration = .seconds(60)
    package static let firstBackoff: Duration = .milliseconds(500)
    package static let longestBackoff: Duration = .seconds(30)
    /// SIGHUPs coalesce: the config is read again once none has come for this long…
    package static let reloadSettle: Duration = .milliseconds(100)
    /// …or this long after the first one still waiting, so that an endless storm of them
    /// still reloads, once a second, instead of queueing a reload per signal.
    package static let reloadLongestWait: Duration = .seconds(1)

    private var lastFlush: UInt64
    private var nextPoll: UInt64
    /// The earliest a resync may start, after the last overflow.
    package private(set) var resyncNotBefore: UInt64
    /// The gap the last overflow imposed.
    package private(set) var resyncBackoff: Duration = .zero
    private var lastResync: UInt64?
    private var syncDeadlines: [[UInt8]: UInt64] = [:]
    /// The first SIGHUP not yet applied, and the latest.
    private var reloadRequests: (first: UInt64, last: UInt64)?

    package init(
        settle: Duration = .milliseconds(20), pollInterval: Duration = .seconds(2),
        syncTimeout: Duration = .seconds(30), now: UInt64
    ) {
        self.settle = settle
        self.pollInterval = pollInterval
        self.syncTimeout = syncTimeout
        lastFlush = now
        nextPoll = now + pollInterval.nanoseconds
        resyncNotBefore = now
    }

    /// The earliest moment the next flush may come: changes handed over before it are stat'ed
    /// then at the earliest, whenever they are applied.
    package var earliestFlush: UInt64 { Saturating.sum(lastFlush, settle.nanoseconds) }

    /// Syncs still waiting for their marker.
    package var waitingSyncs: Int { syncDeadlines.count }

    /// When the loop must wake at the latest to do what is due; nil when nothing is timed.
    package func wakeDeadline(_ conditions: LoopConditions) -> UInt64? {
        var deadlines: [UInt64] = []
        if conditions.hasPendingWork { deadlines.append(lastFlush + settle.nanoseconds) }
        if let timer = conditions.timerDeadline { deadlines.append(timer) }
        if conditions.hasUnwatchedDirectories { deadlines.append(nextPoll) }
        if conditions.needsResync { deadlines.append(resyncNotBefore) }
        if let policy = conditions.policyDeadline { deadlines.append(policy) }
        if let verify = conditions.verifyDeadline { deadlines.append(verify) }
        if let sync = syncDeadlines.values.min() { deadlines.append(sync) }
        if let reload = reloadDeadline { deadlines.append(reload) }
        return deadlines.min()
    }

    /// What is due at `now`. A resync is due once its backoff has passed, or at once while a
    /// sync waits: the marker may have been lost with the overflow, and the fresh crawl
    /// answers the sync anyway.
    package func due(_ conditions: LoopConditions, now: UInt64) -> DueWork {
        DueWork(
            flush: conditions.hasPendingWork && now >= lastFlush + settle.nanoseconds,
            poll: conditions.hasUnwatchedDirectories && now >= nextPoll,
            resync: conditions.needsResync && (now >= resyncNotBefore || !syncDeadlines.isEmpty),
            expiredSyncs: syncDeadlines.filter { $0.value <= now }.map(\.key).sorted {
                $0.lexicographicallyPrecedes($1)
            },
            reload: reloadDeadline.map { now >= $0 } ?? false)
    }

    /// When the waiting SIGHUPs are applied as one reload; nil when none waits.
    package var reloadDeadline: UInt64? {
        reloadRequests.map {
            min(
                Saturating.sum($0.last, Self.reloadSettle.nanoseconds),
                Saturating.sum($0.first, Self.reloadLongestWait.nanoseconds))
        }
    }

    /// A SIGHUP (or several, taken together) arrived at `now`.
    package mutating func reloadRequested(at now: UInt64) {
        reloadRequests = (first: reloadRequests?.first ?? now, last: now)
    }

    /// The config was read again: every SIGHUP until now is answered.
    package mutating func reloaded() { reloadRequests = nil }

    package mutating func flushed(at now: UInt64) { lastFlush = now }

    package mutating func polled(at now: UInt64) { nextPoll = now + pollInterval.nanoseconds }

    /// Records an overflow seen at `now` and sets when the resync may start: at once after a
    /// quiet minute, else 0.5 s, 1 s, 2 s … 30 s after the last resync, doubling each time, so
    /// that a sustained storm cannot become a recrawl storm.
    package mutating func overflowed(at now: UInt64) {
        if let lastResync, now - lastResync < Self.overflowMemory.nanoseconds {
            resyncBackoff = min(max(resyncBackoff * 2, Self.firstBackoff), Self.longestBackoff)
        } else {
            resyncBackoff = .zero
        }
        resyncNotBefore = (lastResync ?? now) + resyncBackoff.nanoseconds
    }

    package mutating func resynced(at now: UInt64) { lastResync = now }

    /// A sync whose marker was created at `now`; it expires after ``syncTimeout``.
    package mutating func syncStarted(_ marker: [UInt8], at now: UInt64) {
        syncDeadlines[marker] = now + syncTimeout.nanoseconds
    }

    /// The sync was answered (or expired): it no longer sets a deadline.
    package mutating func syncEnded(_ marker: [UInt8]) { syncDeadlines.removeValue(forKey: marker) }

    package mutating func allSyncsEnded() { syncDeadlines.removeAll() }
}

extension Duration {
    /// Whole nanoseconds; negative durations count as zero, and one longer than `UInt64.max`
    /// nanoseconds (584 years) as `UInt64.max`, so a deadline far away never traps.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return Saturating.sum(Saturating.product(UInt64(seconds), 1_000_000_000), UInt64(attoseconds / 1_000_000_000))
    }
}
