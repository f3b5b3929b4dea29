import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

// Test doubles for the cleanup runner and the cleaners, shared by the cleaning module's tests
// and the engine's (its cleanup step tests): `package`, so only this package's tests see them.

/// A clock whose sleeps end only when the test fires them.
package final class ManualCleanupClock: CleanupClock {
    private struct State {
        var sleepers: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextID = 0
        var monotonic = Moment(sinceOrigin: .zero)
    }

    private let state = Mutex(State())
    package let sleeps: AsyncStream<Void>
    private let sleepStarted: AsyncStream<Void>.Continuation

    package init() { (sleeps, sleepStarted) = AsyncStream.makeStream() }

    package var wallTime: WallTime { WallTime(millisecondsSinceEpoch: 1_800_000_000_000) }
    package var monotonic: Moment { state.withLock { $0.monotonic } }

    package var pendingSleeps: Int { state.withLock { $0.sleepers.count } }

    package func advance(_ duration: Duration) { state.withLock { $0.monotonic += duration } }

    package func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.sleepers[id] = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    sleepStarted.yield()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.resume(throwing: CancellationError())
        }
    }

    /// Ends every sleep going on now.
    package func fireAll() {
        let sleepers = state.withLock { state in
            defer { state.sleepers = [:] }
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.resume() }
    }
}

/// Suspends whoever waits until the test opens it.
package final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    package init() {}

    package func wait() async {
        await withCheckedContinuation { continuation in
            let passed = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if passed { continuation.resume() }
        }
    }

    package func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// An ordered log of what happened, shared by cleaners and the test; the test can wait for
/// an entry to appear.
package final class EventLog: Sendable {
    private let state = Mutex<(entries: [String], waiters: [(String, CheckedContinuation<Void, Never>)])>(([], []))

    package init() {}

    package var entries: [String] { state.withLock { $0.entries } }

    package func append(_ entry: String) {
        let ready = state.withLock { state in
            state.entries.append(entry)
            let ready = state.waiters.filter { $0.0 == entry }.map(\.1)
            state.waiters.removeAll { $0.0 == entry }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    package func waitFor(_ entry: String) async {
        await withCheckedContinuation { continuation in
            let present = state.withLock { state -> Bool in
                if state.entries.contains(entry) { return true }
                state.waiters.append((entry, continuation))
                return false
            }
            if present { continuation.resume() }
        }
    }
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

    package func clean(_ context: CleanupContext) async throws -> CleanupResult {
        log.append("\(name) start \(context.trigger.name)")
        defer { log.append("\(name) end") }
        switch behaviour {
        case .succeed: break
        case .wait(let gate), .hangIgnoringCancellation(let gate): await gate.wait()
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

/// Collects the runner's summaries and lets the test wait for the n-th.
package final class SummaryCollector: Sendable {
    private let state = Mutex<[CleanupSummary]>([])
    package let stream: AsyncStream<CleanupSummary>
    private let continuation: AsyncStream<CleanupSummary>.Continuation

    package init() { (stream, continuation) = AsyncStream.makeStream() }

    package var summaries: [CleanupSummary] { state.withLock { $0 } }

    package func receive(_ summary: CleanupSummary) {
        state.withLock { $0.append(summary) }
        continuation.yield(summary)
    }
}
