import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// One hook's thread: takes events from its backlog one at a time and runs the command for each.
final class HookWorker: @unchecked Sendable {
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
    private let cancellation: WakeupPipe

    // Everything below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var backlog: HookBacklog
    private var stopping = false
    private var finished = false
    private var runs = 0
    private var failures = 0

    init(hook: HookSpec, settings: Settings) throws(Errno) {
        self.hook = hook
        self.settings = settings
        backlog = HookBacklog(for: hook)
        cancellation = try WakeupPipe()
        let thread = Thread { [self] in loop() }
        thread.name = "hook \(hook.name)"
        thread.start()
    }

    // The thread holds `self` until it ends, so the pipe is closed only once nothing can
    // write to it or poll it.
    deinit { cancellation.close() }

    func submit(_ event: HookEvent) {
        let now = settings.now()
        condition.lock()
        if !stopping {
            _ = backlog.add(event, at: now)
            condition.signal()
        }
        condition.unlock()
    }

    func statistics() -> HookRunner.Statistics {
        condition.lock()
        defer { condition.unlock() }
        return HookRunner.Statistics(
            hookName: hook.name, runs: runs, failures: failures, dropped: backlog.dropped,
            rateLimited: backlog.rateLimited, coalesced: backlog.coalesced, waiting: backlog.count)
    }

    /// Tells the thread to stop and kills a run under way, without waiting.
    func requestStop() {
        condition.lock()
        let first = !stopping
        stopping = true
        _ = backlog.removeAll()
        condition.broadcast()
        condition.unlock()
        if first { cancellation.wake() }
    }

    /// Stops the thread and waits until it has finished.
    func stop() {
        requestStop()
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while let event = nextEvent() {
            let failure = run(event)
            condition.lock()
            let stopped = stopping
            runs += 1
            if failure != nil && !stopped { failures += 1 }
            condition.unlock()
            // A run killed because the runner stops is not the hook's failure.
            if stopped { continue }
            if let failure { settings.onFailure(failure) }
            settings.onRun?(HookRunner.Run(hookName: hook.name, event: event, failure: failure))
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the next event; nil once the hook is to stop.
    private func nextEvent() -> HookEvent? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            if let event = backlog.next() { return event }
            condition.wait()
        }
        return nil
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
                request, timeout: hook.timeout, killGrace: settings.killGrace, cancellation: cancellation.readEnd)
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
        condition.lock()
        failure.droppedEvents = backlog.dropped
        condition.unlock()
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
