import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

// Test doubles for the cleanup runner and the cleaners, shared by the cleaning module's tests
// and the engine's (its cleanup step tests): `package`, so only this package's tests see them.

/// A clock whose sleeps end only when the test fires them (or what the sleeper waits on
/// happens); the test blocks until a sleep has begun, so it fires the one it means.
package final class ManualCleanupClock: CleanupClock {
    private struct State {
        /// Sleeps going on, each with whether it was fired and how to wake its sleeper.
        var sleepers: [Int: (fired: Bool, wake: @Sendable () -> Void)] = [:]
        var nextID = 0
        /// Sleeps begun since the clock was made.
        var started = 0
        var monotonic = Moment(sinceOrigin: .zero)
    }

    private let state = BlockingState(State())

    package init() {}

    package var wallTime: WallTime { WallTime(millisecondsSinceEpoch: 1_800_000_000_000) }
    package var monotonic: Moment { state.withLock { $0.monotonic } }

    /// Sleeps going on and not yet fired.
    package var pendingSleeps: Int { state.withLock { $0.sleepers.values.count { !$0.fired } } }

    /// Blocks until `count` sleeps have begun since the clock was made.
    package func waitForSleeps(_ count: Int) { state.waitUntil { $0.started >= count } }

    /// Blocks until a sleep not yet fired is going on.
    package func waitForPendingSleep() { state.waitUntil { $0.sleepers.values.contains { !$0.fired } } }

    package func advance(_ duration: Duration) { state.withLock { $0.monotonic += duration } }

    package func sleep<Watched>(
        for duration: Duration, on watched: BlockingState<Watched>, until ended: (inout Watched) -> Bool
    ) -> Bool {
        let wake: @Sendable () -> Void = { watched.wakeWaiters() }
        let id = state.withLockWakingWaiters { state in
            state.nextID += 1
            state.started += 1
            state.sleepers[state.nextID] = (false, wake)
            return state.nextID
        }
        defer { state.withLockWakingWaiters { _ = $0.sleepers.removeValue(forKey: id) } }
        return watched.wait { watchedState -> Bool? in
            if ended(&watchedState) { return true }
            return isFired(id) ? false : nil
        } ?? false
    }

    private func isFired(_ id: Int) -> Bool { state.withLock { $0.sleepers[id]?.fired ?? true } }

    /// Ends every sleep going on now.
    package func fireAll() {
        let wakes = state.withLock { state -> [@Sendable () -> Void] in
            for id in state.sleepers.keys { state.sleepers[id]?.fired = true }
            return state.sleepers.values.map(\.wake)
        }
        for wake in wakes { wake() }
    }
}

/// Blocks whoever waits until the test opens it.
package final class Gate: Sendable {
    private let opened = BlockingState(false)

    package init() {}

    package func wait() { opened.waitUntil { $0 } }

    package func open() { opened.withLockWakingWaiters { $0 = true } }
}

/// An ordered log of what happened, shared by cleaners and the test; the test can block until
/// an entry appears.
package final class EventLog: Sendable {
    private let state = BlockingState<[String]>([])

    package init() {}

    package var entries: [String] { state.withLock { $0 } }

    package func append(_ entry: String) { state.withLockWakingWaiters { $0.append(entry) } }

    package func waitFor(_ entry: String) { state.waitUntil { $0.contains(entry) } }
}

/// Records every removal asked for and answers as if it happened, freeing `freed[path]`.
package final class RecordingBackend: RemovalBackend {
    private let requests = Mutex<[RemovalRequest]>([])
    package let freed: [[UInt8]: UInt64]

    package init(freed: [[UInt8]: UInt64] = [:]) { self.freed = freed }

    package var recorded: [RemovalRequest] { requests.withLock { $0 } }

    package func remove(_ request: RemovalRequest) -> DeletionOutcome {
        requests.withLock { $0.append(request) }
        var removal = Removal(dryRun: false)
        removal.freedBytes = freed[request.path] ?? 0
        return .removed(removal)
    }
}

/// A cleaner whose behaviour the test picks.
package struct ScriptedCleaner: Cleaner {
    package enum Behaviour: Sendable {
        case succeed
        case wait(Gate)
        case hangIgnoringCancellation(Gate)
        case fail(String)
        case remove([UInt8])
    }

    package let name: String
    package let behaviour: Behaviour
    package let log: EventLog

    package init(name: String, behaviour: Behaviour, log: EventLog) {
        self.name = name
        self.behaviour = behaviour
        self.log = log
    }

    package func clean(_ context: CleanupContext) throws -> CleanupResult {
        log.append("\(name) start \(context.trigger.name)")
        defer { log.append("\(name) end") }
        switch behaviour {
        case .succeed: break
        case .wait(let gate), .hangIgnoringCancellation(let gate): gate.wait()
        case .fail(let message): throw TestFailure(message: message)
        case .remove(let path):
            let outcome = context.remover.remove(path: path, identity: FileIdentity(device: 1, inode: 2), rule: "r")
            if case .removed(let removal) = outcome {
                return CleanupResult(removed: [RemovedItem(path: path, freedBytes: removal.freedBytes)])
            }
        }
        return CleanupResult()
    }
}

package struct TestFailure: Error, CustomStringConvertible {
    package let message: String

    package init(message: String) { self.message = message }
    package var description: String { message }
}

/// Collects the runner's summaries and lets the test block until the n-th.
package final class SummaryCollector: Sendable {
    private let state = BlockingState<[CleanupSummary]>([])

    package init() {}

    package var summaries: [CleanupSummary] { state.withLock { $0 } }

    package func receive(_ summary: CleanupSummary) { state.withLockWakingWaiters { $0.append(summary) } }

    /// Blocks until `count` summaries have come; returns the `count`-th.
    package func waitFor(_ count: Int) -> CleanupSummary {
        state.wait { $0.count >= count ? $0[count - 1] : nil }!
    }
}

/// Steps the test gives a cleaner one at a time, then ends; the cleaner blocks for each.
package final class Steps: Sendable {
    private let state = BlockingState<(given: Int, finished: Bool)>((0, false))

    package init() {}

    package func give() { state.withLockWakingWaiters { $0.given += 1 } }

    package func finish() { state.withLockWakingWaiters { $0.finished = true } }

    /// Blocks until step `number` (counting from 1) is given: true, or the steps ended: false.
    package func wait(for number: Int) -> Bool {
        state.wait { $0.given >= number ? true : ($0.finished ? false : nil) }!
    }
}
