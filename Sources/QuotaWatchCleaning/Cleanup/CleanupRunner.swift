import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Runs the cleaners, one after another in registration order, each waited for and bounded by
/// a timeout; then calls the completion callback once with the run's summary.
///
/// One run at a time: triggers submitted while a run is going on wait, and all of them are
/// served by one follow-up run (a trigger equal to one already waiting is dropped). A run
/// serves its triggers in arrival order, calling every cleaner for each. A cleaner that throws
/// or outlives its timeout is reported in the summary and the next one is called: a timed-out
/// cleaner's call is cancelled (``CleanupContext/cancellation``) and its thread left behind,
/// never joined.
///
/// Runs happen on a ``JoinableThread`` of the runner's, never on the engine thread:
/// ``submit(_:)`` only records the trigger (starting that thread when none is draining) and
/// returns. Each cleaner call runs on a thread of its own, so that the runner's thread can
/// time it; every one of these threads carries the fault plan armed where the run was
/// submitted. ``stop()`` cancels the call going on and joins the runner's thread.
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

    /// What the engine knows for a trigger (its level, directory and candidates), asked on the
    /// runner's thread at the start of the trigger's turn so it is current.
    package typealias Prepare = @Sendable (CleanupTrigger) -> CleanupInputs
    package typealias Completion = @Sendable (CleanupSummary) -> Void
    /// Told how far a cleaner has got, from a thread of the runner's: it must not block (the
    /// daemon posts it to the engine's mailbox, which only appends).
    package typealias ProgressSink = @Sendable (CleanupProgressReport) -> Void

    private struct State {
        var cleaners: [any Cleaner] = []
        var waiting: [CleanupTrigger] = []
        var running = false
        var runs = 0
        var stopped = false
        /// The thread draining, or the last one that did (the next joins it, as ``stop()`` does).
        var thread: JoinableThread?
        /// The cancellation of the cleaner call going on, for ``stop()``.
        var call: Cancellation?
    }

    let settings: Settings
    let backend: any RemovalBackend
    let clock: any CleanupClock
    let prepare: Prepare
    let completion: Completion
    let reportProgress: ProgressSink?
    /// Distinguishes this runner's runs from those of earlier starts in the audit log.
    let instance: String
    private let state = BlockingState(State())

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

    /// Asks for one run serving all of `triggers` (with any already waiting). Nothing after
    /// ``stop()``.
    package func submit(_ triggers: [CleanupTrigger]) {
        guard !triggers.isEmpty else { return }
        state.withLock { state in
            guard !state.stopped else { return }
            for trigger in triggers where !state.waiting.contains(trigger) { state.waiting.append(trigger) }
            guard !state.running else { return }
            state.running = true
            // The thread that drained before has set `running` back and is about to return.
            let previous = state.thread
            state.thread = JoinableThread(name: "cleanup-runner") { [self] in
                previous?.join()
                drain()
            }
        }
    }

    /// Blocks until no run is going on and none is waiting.
    package func waitUntilIdle() {
        state.waitUntil { !$0.running }
    }

    /// Cancels the cleaner call going on, drops the triggers waiting, and joins the runner's
    /// thread; a run cut short reports no summary (the engine is stopping). Idempotent.
    package func stop() {
        let (thread, call) = state.withLockWakingWaiters { state -> (JoinableThread?, Cancellation?) in
            state.stopped = true
            state.waiting = []
            return (state.thread, state.call)
        }
        call?.cancel()
        thread?.join()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func drain() {
        while true {
            let next = state.withLockWakingWaiters {
                state -> (triggers: [CleanupTrigger], cleaners: [any Cleaner], run: Int)? in
                guard !state.waiting.isEmpty, !state.stopped else {
                    state.running = false
                    return nil
                }
                defer { state.waiting = [] }
                state.runs += 1
                return (state.waiting, Self.expand(state.cleaners), state.runs)
            }
            guard let next else { return }
            if let summary = perform(next.triggers, cleaners: next.cleaners, runID: "\(instance)-\(next.run)") {
                completion(summary)
            }
        }
    }

    /// The run order with each group replaced by its members now.
    private static func expand(_ cleaners: [any Cleaner]) -> [any Cleaner] {
        cleaners.flatMap { cleaner -> [any Cleaner] in (cleaner as? any CleanerGroup)?.members() ?? [cleaner] }
    }

    /// The run's summary; nil when the runner stopped during it (the engine is stopping too).
    private func perform(_ triggers: [CleanupTrigger], cleaners: [any Cleaner], runID: String) -> CleanupSummary? {
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
            let inputs = prepare(trigger)
            for (index, cleaner) in cleaners.enumerated() {
                if isStopped { return nil }
                let progress = CleanupProgress(clock: clock)
                let remover = Remover(
                    backend: backend, trigger: trigger.name, cleaner: cleaner.name, run: runID, progress: progress)
                var context = CleanupContext(
                    trigger: trigger, inputs: inputs, dryRun: settings.dryRun, remover: remover, runID: runID,
                    root: settings.root)
                context.removedEarlier = removedInRun
                context.nowNanoseconds = Saturating.product(clock.wallTime.millisecondsSinceEpoch, 1_000_000)
                let outcome = call(cleaner, context, progress: progress)
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

    /// Where a call's result is decided: the first of the cleaner's answer, the timeout and
    /// ``stop()`` to get there stands.
    typealias CallSlot = BlockingState<CallResult?>

    /// Calls one cleaner on a thread of its own, timed on this one. Whichever of the answer and
    /// the timeout comes first decides; a call past its timeout is cancelled and its thread not
    /// waited for. The timeout bounds a stall, not a large job: it counts from the cleaner's
    /// last removal answered (``CleanupProgress``), so one removing 60 000 files in a steady
    /// stream is not stopped, and one that answers nothing for the whole timeout is.
    private func call(_ cleaner: any Cleaner, _ context: CleanupContext, progress: CleanupProgress) -> CallResult {
        let slot = CallSlot(nil)
        let cancellation = context.cancellation
        let started = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.call = cancellation
            return true
        }
        guard started else { return .threw(Self.stopped) }
        defer { state.withLock { $0.call = nil } }
        cancellation.onCancel { Self.decide(slot, .threw(Self.stopped)) }
        let worker = JoinableThread(name: "cleaner \(cleaner.name)") {
            let result: CallResult
            do {
                result = .finished(try cleaner.clean(context))
            } catch is CleanerNotConcerned {
                result = .notConcerned
            } catch {
                result = .threw("\(error)")
            }
            Self.decide(slot, result)
        }
        let (clock, interval) = (clock, settings.progressInterval)
        let reporter = reportProgress.map { report in
            JoinableThread(name: "cleanup-progress") {
                Self.report(progress, of: cleaner.name, context, every: interval, clock, until: slot, report)
            }
        }
        let timeout = cleaner.callTimeout ?? settings.timeout
        var wait = timeout
        var seen = progress.reading.answered
        while !clock.sleep(for: wait, on: slot, until: { $0 != nil }) {
            let now = progress.reading
            if now.answered == seen {
                Self.decide(slot, .threw(Self.timedOut(after: timeout, now)))
                break
            }
            // Progress since the last look: wait a whole timeout from the last answer.
            seen = now.answered
            wait = timeout - min(clock.monotonic - now.at, timeout)
        }
        // Decided: a cleaner still going stops at its next step (one that answered, nothing).
        cancellation.cancel()
        reporter?.join()
        if worker.hasFinished { worker.join() }
        return slot.withLock { $0 } ?? .threw(Self.stopped)
    }

    private static let stopped = "stopped: the daemon is stopping"

    private static func decide(_ slot: CallSlot, _ result: CallResult) {
        slot.withLockWakingWaiters { decided in
            if decided == nil { decided = result }
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

    /// Reports `progress` every `interval` in which something was answered, until the call is
    /// decided.
    fileprivate static func report(
        _ progress: CleanupProgress, of cleaner: String, _ context: CleanupContext, every interval: Duration,
        _ clock: any CleanupClock, until slot: CallSlot, _ report: ProgressSink
    ) {
        let started = clock.monotonic
        var shown = 0
        while !clock.sleep(for: interval, on: slot, until: { $0 != nil }) {
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
