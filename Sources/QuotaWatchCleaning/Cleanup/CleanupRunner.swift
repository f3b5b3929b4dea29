import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// Runs the registered cleaners, one after another in registration order, each awaited and
/// bounded by a timeout; then calls the completion callback once with the run's summary.
///
/// One run at a time: triggers submitted while a run is going on wait, and all of them are
/// served by one follow-up run (a trigger equal to one already waiting is dropped). A run
/// serves its triggers in arrival order, calling every cleaner for each. A cleaner that throws
/// or outlives its timeout is reported in the summary and the next one is called: a timed-out
/// cleaner's task is cancelled and left behind, never awaited.
///
/// Runs happen on Swift's concurrency pool, never on the engine thread: ``submit(_:)`` only
/// records the trigger and returns.
package final class CleanupRunner: Sendable {
    package struct Settings: Sendable {
        /// How long one cleaner may take for one trigger.
        package var timeout: Duration
        /// Every remover checks and reports, and removes nothing.
        package var dryRun: Bool
        /// The daemon's ROOT, handed to every cleaner in its context (``CleanupContext/root``).
        package var root: String?
        /// How often a cleaner's progress is reported while it runs (``CleanupProgressReport``).
        package var progressInterval: Duration

        package init(
            timeout: Duration = .seconds(60), dryRun: Bool, root: String? = nil,
            progressInterval: Duration = .milliseconds(500)
        ) {
            self.timeout = timeout
            self.dryRun = dryRun
            self.root = root
            self.progressInterval = progressInterval
        }
    }

    /// What the engine knows for a trigger (its level, directory and candidates), asked at the
    /// start of the trigger's turn so it is current.
    package typealias Prepare = @Sendable (CleanupTrigger) async -> CleanupInputs
    package typealias Completion = @Sendable (CleanupSummary) -> Void
    /// Told how far a cleaner has got, from the runner's own task: it must not block (the
    /// daemon posts it to the engine's mailbox, which only appends).
    package typealias ProgressSink = @Sendable (CleanupProgressReport) -> Void

    private struct State {
        var cleaners: [any Cleaner] = []
        var waiting: [CleanupTrigger] = []
        var running = false
        var runs = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let settings: Settings
    let backend: any RemovalBackend
    let clock: any CleanupClock
    let prepare: Prepare
    let completion: Completion
    let reportProgress: ProgressSink?
    /// Distinguishes this runner's runs from those of earlier starts in the audit log.
    let instance: String
    private let state = Mutex(State())

    package init(
        settings: Settings, backend: any RemovalBackend, clock: any CleanupClock = SystemCleanupClock(),
        instance: String, prepare: @escaping Prepare, completion: @escaping Completion,
        reportProgress: ProgressSink? = nil
    ) {
        self.settings = settings
        self.reportProgress = reportProgress
        self.backend = backend
        self.clock = clock
        self.instance = instance
        self.prepare = prepare
        self.completion = completion
    }

    /// Adds a cleaner after those already registered; it takes part from the next run.
    package func register(_ cleaner: any Cleaner) {
        state.withLock { $0.cleaners.append(cleaner) }
    }

    /// Asks for a run. Returns at once; the run starts now, or after the one going on.
    package func submit(_ trigger: CleanupTrigger) { submit([trigger]) }

    /// Asks for one run serving all of `triggers` (with any already waiting).
    package func submit(_ triggers: [CleanupTrigger]) {
        guard !triggers.isEmpty else { return }
        let start = state.withLock { state -> Bool in
            for trigger in triggers where !state.waiting.contains(trigger) { state.waiting.append(trigger) }
            if state.running { return false }
            state.running = true
            return true
        }
        guard start else { return }
        FaultReach.leavingPlan(for: "the cleanup runner")
        Task.detached { await self.drain() }
    }

    /// Returns once no run is going on and none is waiting.
    package func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if !state.running { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while true {
            let next = state.withLock { state -> (triggers: [CleanupTrigger], cleaners: [any Cleaner], run: Int)? in
                guard !state.waiting.isEmpty else {
                    state.running = false
                    for waiter in state.idleWaiters { waiter.resume() }
                    state.idleWaiters = []
                    return nil
                }
                defer { state.waiting = [] }
                state.runs += 1
                return (state.waiting, Self.expand(state.cleaners), state.runs)
            }
            guard let next else { return }
            let summary = await perform(next.triggers, cleaners: next.cleaners, runID: "\(instance)-\(next.run)")
            completion(summary)
        }
    }

    /// The run order with each group replaced by its members now.
    private static func expand(_ cleaners: [any Cleaner]) -> [any Cleaner] {
        cleaners.flatMap { cleaner -> [any Cleaner] in (cleaner as? any CleanerGroup)?.members() ?? [cleaner] }
    }

    private func perform(_ triggers: [CleanupTrigger], cleaners: [any Cleaner], runID: String) async -> CleanupSummary {
        let started = clock.monotonic
        var reports = cleaners.map { CleanerReport(name: $0.name) }
        // Triggers served by one run can name the same file (each leftover's own trigger, and
        // a breach of its directory): each cleaner reports it once, by what first happened to
        // it, so a dry run never counts a file twice.
        var handled = cleaners.map { _ in Set<[UInt8]>() }
        // Cleaners no trigger of the run concerned (a registered cleaner of other paths) are
        // left out of the summary.
        var concerned = cleaners.map { _ in false }
        // Everything removed so far in this run (in a dry run, what would be): each cleaner's
        // context is settled against it, so none is offered a file already gone or a tally
        // the cleaners before it made stale.
        var removedInRun: Set<[UInt8]> = []
        for trigger in triggers {
            let inputs = await prepare(trigger)
            for (index, cleaner) in cleaners.enumerated() {
                let progress = CleanupProgress(clock: clock)
                let remover = Remover(
                    backend: backend, trigger: trigger.name, cleaner: cleaner.name, run: runID, progress: progress)
                var context = CleanupContext(
                    trigger: trigger, inputs: inputs, dryRun: settings.dryRun, remover: remover, runID: runID,
                    root: settings.root)
                context.removedEarlier = removedInRun
                context.nowNanoseconds = Saturating.product(clock.wallTime.millisecondsSinceEpoch, 1_000_000)
                let outcome = await call(cleaner, context, progress: progress)
                // A cleaner that timed out or threw removed what its progress saw, all the same.
                removedInRun.formUnion(progress.removedPaths)
                if case .finished(let result) = outcome { removedInRun.formUnion(result.removed.map(\.path)) }
                if case .notConcerned = outcome { continue }
                concerned[index] = true
                switch outcome {
                case .notConcerned:
                    break
                case .finished(let result):
                    reports[index].unattributedFreedBytes = Saturating.sum(
                        reports[index].unattributedFreedBytes, result.unattributedFreedBytes)
                    for item in result.removed where handled[index].insert(item.path).inserted {
                        reports[index].removed.append(item)
                    }
                    for item in result.skipped where handled[index].insert(item.path).inserted {
                        reports[index].skipped.append(item)
                    }
                    // The same refusal for every trigger (a full audit log) is said once.
                    if let error = result.error, reports[index].error?.contains(error) != true {
                        reports[index].error = [reports[index].error, error].compactMap { $0 }.joined(separator: "; ")
                    }
                case .threw(let message):
                    reports[index].error = [reports[index].error, message].compactMap { $0 }.joined(separator: "; ")
                }
            }
        }
        let seconds = Double((clock.monotonic - started) / .milliseconds(1)) / 1000
        let shown = zip(cleaners, reports).enumerated().filter { index, pair in
            concerned[index] || !(pair.0 is RegisteredCleanerCall)
        }.map { $0.element.1 }
        return CleanupSummary(
            runID: runID, triggers: triggers, cleaners: shown, seconds: seconds, dryRun: settings.dryRun,
            time: clock.wallTime)
    }

    enum CallResult: Sendable {
        case finished(CleanupResult)
        case threw(String)
        case notConcerned
    }

    /// Calls one cleaner, racing it against the timeout. Whichever ends first answers; the
    /// loser is cancelled and not waited for. The timeout bounds a stall, not a large job: it
    /// counts from the cleaner's last removal answered (``CleanupProgress``), so one removing
    /// 60 000 files in a steady stream is not killed, and one that answers nothing for the
    /// whole timeout is.
    private func call(
        _ cleaner: any Cleaner, _ context: CleanupContext, progress: CleanupProgress
    ) async
        -> CallResult
    {
        let race = Race()
        let timeout = cleaner.callTimeout ?? settings.timeout
        let clock = clock
        return await withCheckedContinuation { continuation in
            race.arm(continuation)
            let work = Task {
                do {
                    race.finish(.finished(try await cleaner.clean(context)))
                } catch is CleanerNotConcerned {
                    race.finish(.notConcerned)
                } catch {
                    race.finish(.threw("\(error)"))
                }
            }
            let timer = Task {
                do {
                    var wait = timeout
                    var seen = progress.reading.answered
                    while true {
                        try await clock.sleep(for: wait)
                        let now = progress.reading
                        if now.answered == seen { break }
                        // Progress since the last look: wait a whole timeout from the last answer.
                        seen = now.answered
                        wait = timeout - min(clock.monotonic - now.at, timeout)
                    }
                    race.finish(.threw(Self.timedOut(after: timeout, progress.reading)))
                    work.cancel()
                } catch {
                    // Cancelled: the cleaner answered first.
                }
            }
            let interval = settings.progressInterval
            let reporter = reportProgress.map { report in
                Task { await Self.report(progress, of: cleaner.name, context, every: interval, clock, report) }
            }
            race.onFinish {
                timer.cancel()
                reporter?.cancel()
            }
        }
    }
}

extension CleanupRunner {
    /// A timed-out cleaner's result is dropped, not what it already removed: said here, so
    /// the report never reads as though nothing went.
    static func timedOut(after timeout: Duration, _ reading: CleanupProgress.Reading) -> String {
        guard reading.removed > 0 else { return "timed out after \(timeout)" }
        return "timed out after \(timeout), having removed \(reading.removed) "
            + "(\(ByteFormat.decimal.string(reading.freedBytes)) freed; the audit log lists them)"
    }

    /// Reports `progress` every `interval` in which something was answered, until cancelled.
    fileprivate static func report(
        _ progress: CleanupProgress, of cleaner: String, _ context: CleanupContext, every interval: Duration,
        _ clock: any CleanupClock, _ report: ProgressSink
    ) async {
        let started = clock.monotonic
        var shown = 0
        while true {
            do { try await clock.sleep(for: interval) } catch { return }
            let now = progress.reading
            guard now.answered != shown else { continue }
            shown = now.answered
            report(
                CleanupProgressReport(
                    runID: context.runID, trigger: context.trigger, cleaner: cleaner, removed: now.removed,
                    freedBytes: now.freedBytes, answered: now.answered,
                    seconds: Double((clock.monotonic - started) / .milliseconds(1)) / 1000, dryRun: context.dryRun))
        }
    }
}

/// The first of two tasks to finish resumes the continuation; the other's answer is dropped.
private final class Race: Sendable {
    private struct State {
        var continuation: CheckedContinuation<CleanupRunner.CallResult, Never>?
        var decided = false
        var cleanup: (@Sendable () -> Void)?
    }

    private typealias Resumption = (
        continuation: CheckedContinuation<CleanupRunner.CallResult, Never>?, cleanup: (@Sendable () -> Void)?
    )

    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<CleanupRunner.CallResult, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ result: CleanupRunner.CallResult) {
        let resumption: Resumption = state.withLock { state -> Resumption in
            guard !state.decided else { return (nil, nil) }
            state.decided = true
            let continuation = state.continuation
            state.continuation = nil
            return (continuation, state.cleanup)
        }
        resumption.continuation?.resume(returning: result)
        resumption.cleanup?()
    }

    /// Runs `cleanup` when the race is decided (at once if it already is).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let decided = state.withLock { state -> Bool in
            if state.decided { return true }
            state.cleanup = cleanup
            return false
        }
        if decided { cleanup() }
    }
}
