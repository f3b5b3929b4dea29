import Dispatch
import Synchronization

/// State shared between threads, reachable only inside its lock, that a thread can block on
/// until a condition on it holds: the one blocking queue of QuotaWatch (the engine's mailbox,
/// the event writer's lines, each hook's backlog, the crawl's work and results are its
/// states). "Only while locked" is what the compiler checks, not a comment.
///
/// A `Mutex` holds the state and the list of blocked waiters, each with a semaphore of its
/// own. A change that a waiter may be waiting for is made with ``withLockWakingWaiters(_:)``
/// (or followed by ``wakeWaiters()``), which wakes every waiter blocked at that moment to look
/// again; a wait re-checks its condition under the lock each time it wakes, so a wake it did
/// not need costs one look. One semaphore per waiter, not one shared: a shared one lets a
/// thread that starts waiting after the wake take the permit meant for one already waiting.
///
/// The generic members are `@inlinable`: called from another module they would otherwise run
/// unspecialized, looking up the metadata of their generic types at every call (3 % of a crawl
/// of 20 000 directories went to those lookups).
package final class BlockingState<State>: Sendable {
    @usableFromInline
    struct Waiter: Sendable {
        @usableFromInline var number: UInt64
        @usableFromInline var wake: DispatchSemaphore

        @usableFromInline
        init(number: UInt64, wake: DispatchSemaphore) {
            self.number = number
            self.wake = wake
        }
    }

    @usableFromInline
    struct Guarded {
        @usableFromInline var state: State
        /// Threads blocked in ``wait(until:_:)`` and not yet woken.
        @usableFromInline var waiters: [Waiter] = []
        @usableFromInline var nextWaiter: UInt64 = 0

        init(state: sending State) { self.state = state }
    }

    @usableFromInline
    let guarded: Mutex<Guarded>

    package init(_ state: sending State) {
        guarded = Mutex(Guarded(state: state))
    }

    /// Reads or changes the state; wakes nobody.
    @inlinable
    package func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        guarded.withLock { body(&$0.state) }
    }

    /// Changes the state, then wakes every waiter to look at it again.
    @inlinable
    package func withLockWakingWaiters<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        let (result, woken) = guarded.withLock { guarded in
            (body(&guarded.state), Self.takeWaiters(&guarded))
        }
        for waiter in woken { waiter.wake.signal() }
        return result
    }

    /// Wakes every waiter to look at the state again.
    @inlinable
    package func wakeWaiters() {
        for waiter in guarded.withLock({ Self.takeWaiters(&$0) }) { waiter.wake.signal() }
    }

    /// Runs `body` under the lock until it returns a value, blocking in between until woken;
    /// nil once `deadline` has passed with `body` still returning nil (it runs once more then).
    @inlinable
    package func wait<Result: Sendable>(
        until deadline: ContinuousClock.Instant? = nil, _ body: (inout State) -> Result?
    ) -> Result? {
        var blocked: UInt64?
        while true {
            let step: Step<Result> = guarded.withLock { guarded in
                // Timed out while still listed: no wake is coming for this wait.
                if let blocked { guarded.waiters.removeAll { $0.number == blocked } }
                if let result = body(&guarded.state) { return .done(result) }
                if let deadline, deadline <= .now { return .timedOut }
                let waiter = Waiter(number: guarded.nextWaiter, wake: DispatchSemaphore(value: 0))
                guarded.nextWaiter &+= 1
                guarded.waiters.append(waiter)
                return .wait(waiter)
            }
            switch step {
            case .done(let result): return result
            case .timedOut: return nil
            case .wait(let waiter):
                blocked = waiter.number
                if let deadline {
                    _ = waiter.wake.wait(timeout: Self.dispatchTime(deadline))
                } else {
                    waiter.wake.wait()
                }
            }
        }
    }

    /// Threads blocked now (for tests).
    var blockedWaiters: Int { guarded.withLock { $0.waiters.count } }

    /// Blocks until `condition` holds (true) or `deadline` has passed (false).
    @inlinable
    @discardableResult
    package func waitUntil(deadline: ContinuousClock.Instant? = nil, _ condition: (inout State) -> Bool) -> Bool {
        wait(until: deadline) { condition(&$0) ? true : nil } ?? false
    }

    @usableFromInline
    enum Step<Result: Sendable>: Sendable {
        case done(Result)
        case timedOut
        case wait(Waiter)
    }

    @usableFromInline
    static func takeWaiters(_ guarded: inout Guarded) -> [Waiter] {
        guard !guarded.waiters.isEmpty else { return [] }
        var taken: [Waiter] = []
        swap(&taken, &guarded.waiters)
        return taken
    }

    @usableFromInline
    static func dispatchTime(_ deadline: ContinuousClock.Instant) -> DispatchTime {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return .now() }
        let (seconds, attoseconds) = remaining.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, nanoseconds.partialValue < Int64.max - 1_000_000_000 else { return .distantFuture }
        return .now() + .nanoseconds(Int(nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
