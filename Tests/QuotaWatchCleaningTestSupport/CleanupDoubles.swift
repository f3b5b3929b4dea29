import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// A clock whose sleeps end only when the test fires them.
final class ManualCleanupClock: CleanupClock {
    private struct State {
        var sleepers: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextID = 0
        var monotonic = Moment(sinceOrigin: .zero)
    }

    private let state = Mutex(State())
    let sleeps: AsyncStream<Void>
    private let sleepStarted: AsyncStream<Void>.Continuation

    init() { (sleeps, sleepStarted) = AsyncStream.makeStream() }

    var wallTime: WallTime { WallTime(millisecondsSinceEpoch: 1_800_000_000_000) }
    var monotonic: Moment { state.withLock { $0.monotonic } }

    var pendingSleeps: Int { state.withLock { $0.sleepers.count } }

    func advance(_ duration: Duration) { state.withLock { $0.monotonic += duration } }

    func sleep(for duration: Duration) async throws {
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
    func fireAll() {
        let sleepers = state.withLock { state in
            defer { state.sleepers = [:] }
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.resume() }
    }
}

/// Suspends whoever waits until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let passed = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if passed { continuation.resume() }
        }
    }

    func open() {
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
final class EventLog: Sendable {
    private let state = Mutex<(entries: [String], waiters: [(String, CheckedContinuation<Void, Never>)])>(([], []))

    var entries: [String] { state.withLock { $0.entries } }

    func append(_ entry: String) {
        let ready = state.withLock { state in
            state.entries.append(entry)
            let ready = state.waiters.filter { $0.0 == entry }.map(\.1)
            state.waiters.removeAll { $0.0 == entry }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    func waitFor(_ entry: String) async {
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
final class RecordingBackend: RemovalBackend {
    private let requests = Mutex<[RemovalRequest]>([])
    let freed: [[UInt8]: UInt64]

    init(freed: [[UInt8]: UInt64] = [:]) { self.freed = freed }

    var recorded: [RemovalRequest] { requests.withLock { $0 } }

    func remove(_ request: RemovalRequest) -> DeletionOutcome {
        requests.withLock { $0.append(request) }
        var removal = Removal(dryRun: false)
        removal.freedBytes = freed[request.path] ?? 0
        return .removed(removal)
    }
}

/// A cleaner whose behaviour the test picks.
struct ScriptedCleaner: Cleaner {
    enum Behaviour: Sendable {
        case succeed
        case wait(Gate)
        case hangIgnoringCancellation(Gate)
        case fail(String)
        case remove([UInt8])
    }

    let name: String
    let behaviour: Behaviour
    let log: EventLog

    func clean(_ context: CleanupContext) async throws -> CleanupResult {
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

struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Collects the runner's summaries and lets the test wait for the n-th.
final class SummaryCollector: Sendable {
    private let state = Mutex<[CleanupSummary]>([])
    let stream: AsyncStream<CleanupSummary>
    private let continuation: AsyncStream<CleanupSummary>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    var summaries: [CleanupSummary] { state.withLock { $0 } }

    func receive(_ summary: CleanupSummary) {
        state.withLock { $0.append(summary) }
        continuation.yield(summary)
    }
}
