import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// One hook's thread: takes events from its backlog one at a time and runs the command for each.
final class HookWorker: Sendable {
    struct Settings: Sendable {
        var environment: [[UInt8]]
        var workingDirectory: [UInt8]?
        var killGrace: Duration
        var now: @Sendable () -> Moment
        var onFailure: @Sendable (HookFailure) -> Void
        var onRun: (@Sendable (HookRunner.Run) -> Void)?
    }

    let hook: HookSpec
    private let settings: Settings
    /// Readable once the hook is to stop: ends a run under way.
    private let cancellation: WakeupEvent

    private struct Shared {
        var backlog: HookBacklog
        var stopping = false
        var finished = false
        var runs = 0
        var failures = 0
    }

    private let shared: BlockingState<Shared>

    init(hook: HookSpec, settings: Settings) throws(Errno) {
        self.hook = hook
        self.settings = settings
        shared = BlockingState(Shared(backlog: HookBacklog(for: hook)))
        cancellation = try WakeupEvent()
        // Not joined: ``stop()`` waits for `finished`, which the thread sets as it ends.
        _ = JoinableThread(name: "hook \(hook.name)") { [self] in loop() }
    }

    // The thread holds `self` until it ends, so the pipe is closed only once nothing can
    // write to it or poll it.
    deinit { cancellation.close() }

    func submit(_ event: HookEvent) {
        let now = settings.now()
        shared.withLockWakingWaiters { shared in
            if !shared.stopping { _ = shared.backlog.add(event, at: now) }
        }
    }

    func statistics() -> HookRunner.Statistics {
        let name = hook.name
        return shared.withLock { shared in
            HookRunner.Statistics(
                hookName: name, runs: shared.runs, failures: shared.failures, dropped: shared.backlog.dropped,
                rateLimited: shared.backlog.rateLimited, coalesced: shared.backlog.coalesced,
                waiting: shared.backlog.count)
        }
    }

    /// Tells the thread to stop and kills a run under way, without waiting.
    func requestStop() {
        let first = shared.withLockWakingWaiters { shared in
            let first = !shared.stopping
            shared.stopping = true
            _ = shared.backlog.removeAll()
            return first
        }
        if first { cancellation.wake() }
    }

    /// Stops the thread and waits until it has finished.
    func stop() {
        requestStop()
        shared.waitUntil { $0.finished }
    }

    private func loop() {
        while let event = nextEvent() {
            let failure = run(event)
            let stopped = shared.withLock { shared in
                shared.runs += 1
                if failure != nil && !shared.stopping { shared.failures += 1 }
                return shared.stopping
            }
            // A run killed because the runner stops is not the hook's failure.
            if stopped { continue }
            if let failure { settings.onFailure(failure) }
            settings.onRun?(HookRunner.Run(hookName: hook.name, event: event, failure: failure))
        }
        shared.withLockWakingWaiters { $0.finished = true }
    }

    /// Waits for the next event; nil once the hook is to stop.
    private func nextEvent() -> HookEvent? {
        // nil: nothing yet, wait; .some(nil): stopping.
        let next = shared.wait { shared -> HookEvent?? in
            if shared.stopping { return .some(nil) }
            return shared.backlog.next().map { .some($0) }
        }
        return next ?? nil
    }

    /// The daemon's variables, the event's `QUOTAWATCH_*` ones (text escaped as people see
    /// it), and `QUOTAWATCH_PATH_RAW`: the path's exact bytes, for a hook that acts on the file.
    static func environment(base: [[UInt8]], for event: HookEvent) -> [[UInt8]] {
        var environment = base + event.environment.map { Array("\($0.name)=\($0.value)".utf8) }
        if let path = event.path { environment.append(Array("QUOTAWATCH_PATH_RAW=".utf8) + path) }
        return environment
    }

    private func run(_ event: HookEvent) -> HookFailure? {
        let request = ChildProcess.Request(
            arguments: hook.command,
            environment: Self.environment(base: settings.environment, for: event),
            standardInput: event.json + [UInt8(ascii: "\n")], standardOutput: output,
            workingDirectory: settings.workingDirectory)
        var failure = HookFailure(hookName: hook.name, eventKind: event.kind, path: event.path)
        do {
            let outcome = try ChildProcess.run(
                request, timeout: hook.timeout, killGrace: settings.killGrace, cancellation: cancellation.descriptor)
            switch outcome.termination {
            case .exited(status: 0) where !outcome.timedOut: return nil
            case .exited(let status): failure.exitStatus = status
            case .signaled(let signal): failure.signal = signal
            }
            failure.timedOut = outcome.timedOut
            failure.standardErrorTail = outcome.standardErrorTail
        } catch {
            failure.startError = error.description
        }
        failure.droppedEvents = shared.withLock { $0.backlog.dropped }
        return failure
    }

    private var output: ChildProcess.Output {
        switch hook.standardOutput {
        case .discard: return .discard
        case .daemonStandardError: return .daemonStandardError
        case .file(let path): return .appending(to: path)
        }
    }
}
