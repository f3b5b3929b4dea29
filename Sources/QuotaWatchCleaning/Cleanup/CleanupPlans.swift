import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// What the engine thread prepared for one trigger: for each configured cleaner (by its place
/// in the run order), one ``CleanupInputs`` per call (one per directory to clean), built from
/// the live tree when the trigger came.
struct CleanupPlan: Sendable {
    var level: DiskLevel
    var jobs: [[CleanupInputs]]
    /// Report only, whatever `run --clean` says (`clean-now --dry-run`).
    var dryRun = false
    /// `clean` requests answered with the summary of the run that serves this trigger.
    var replies: [ControlReply] = []
    /// A `clean_delete` selection: the files ``SelectionCleaner`` removes, planned on the
    /// runner; nil for the others.
    var selection: PlannedSelection?
    /// What each registered cleaner this trigger concerns gets, by registration id.
    var registered: [UInt64: CleanupInputs] = [:]
    /// Every file below each directory a cleaner is handed, by the directory's path: what its
    /// use drops by as the cleaners before remove (``settle(_:after:)``).
    var directoryFiles: [[UInt8]: [CleanupCandidate]] = [:]
}

/// Hands the engine thread's plans to the runner's task. A plan waits as `pending` until the
/// runner starts serving its trigger (``activate(_:)``, from the runner's `prepare`), then is
/// `active` until the run ends: a trigger submitted again during a run gets a pending plan of
/// its own for the follow-up run, and its replies wait for that run.
final class CleanupPlans: Sendable {
    private struct State {
        var pending: [CleanupTrigger: CleanupPlan] = [:]
        var active: [CleanupTrigger: CleanupPlan] = [:]
    }

    private let state = Mutex(State())

    /// A newer plan for a waiting trigger replaces the older one (it saw the tree later);
    /// replies add up, and a dry run stays dry.
    func stage(_ trigger: CleanupTrigger, _ plan: CleanupPlan) {
        state.withLock { state in
            var plan = plan
            if let older = state.pending[trigger] {
                plan.replies = older.replies + plan.replies
                plan.dryRun = plan.dryRun || older.dryRun
            }
            state.pending[trigger] = plan
        }
    }

    /// The runner starts serving `trigger`.
    func activate(_ trigger: CleanupTrigger) -> CleanupPlan? {
        state.withLock { state in
            let plan = state.pending.removeValue(forKey: trigger)
            state.active[trigger] = plan
            return plan
        }
    }

    func active(_ trigger: CleanupTrigger) -> CleanupPlan? { state.withLock { $0.active[trigger] } }

    /// The run that served `triggers` ended: their plans, to answer their replies.
    func finish(_ triggers: [CleanupTrigger]) -> [CleanupPlan] {
        state.withLock { state in triggers.compactMap { state.active.removeValue(forKey: $0) } }
    }
}

/// A configured cleaner as the runner sees it: it calls the built-in cleaner once for each
/// directory the engine prepared for it and this trigger, with that directory's candidates.
struct PlannedCleaner: Cleaner {
    let inner: any Cleaner
    let slot: Int
    let plans: CleanupPlans
    /// What removes in a dry run asked for by one request (`clean-now --dry-run`).
    let dryBackend: any RemovalBackend

    var name: String { inner.name }

    func clean(_ context: CleanupContext) throws -> CleanupResult {
        guard let plan = plans.active(context.trigger), slot < plan.jobs.count else { return CleanupResult() }
        let dryRun = context.dryRun || plan.dryRun
        // A program cannot be made to report only: in a dry run it is not started at all.
        if dryRun && inner is CommandCleaner { return CleanupResult() }
        let remover =
            plan.dryRun && !context.dryRun
            ? Remover(
                backend: dryBackend, trigger: context.remover.trigger, cleaner: context.remover.cleaner,
                run: context.remover.run)
            : context.remover
        var result = CleanupResult()
        // This cleaner's own removals settle its next directory too (a trim of two caches).
        var removed = context.removedEarlier
        for planned in plan.jobs[slot] {
            try context.cancellation.check()
            guard let inputs = plan.settle(planned, after: removed) else { continue }
            // A program is told the directory and its files; with no candidate left and no
            // directory it would have nothing to do (a leftover run after its file went).
            if inputs.directory == nil && inputs.candidates.isEmpty && !(inner is CommandCleaner) { continue }
            var call = CleanupContext(
                trigger: context.trigger, inputs: inputs, dryRun: dryRun, remover: remover, runID: context.runID,
                root: context.root)
            call.removedEarlier = removed
            call.nowNanoseconds = context.nowNanoseconds
            call.cancellation = context.cancellation
            let done = try inner.clean(call)
            removed.formUnion(done.removed.map(\.path))
            result.removed += done.removed
            result.skipped += done.skipped
            // The audit log refused an intent: the next directory would be refused the same way.
            if let error = done.error {
                result.error = error
                break
            }
        }
        return result
    }
}

/// The deleter without an audit log: for dry runs, which record nothing.
struct UnrecordedDeleter: RemovalBackend {
    let deleter: Deleter

    func remove(_ request: RemovalRequest) -> DeletionOutcome {
        deleter.remove(request.path, expecting: request.identity, journal: NoJournal())
    }

    func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome] {
        deleter.removeGroup(requests.map { GroupedRemoval(path: $0.path, identity: $0.identity) }, journal: NoJournal())
    }

    private struct NoJournal: DeletionJournal, GroupDeletionJournal {
        func recordIntent(_ entry: DeletionEntry) throws(DeletionJournalError) {}
        func recordOutcome(_ entry: DeletionEntry, failure: SkipReason?) {}
        func recordIntents(_ entries: [(request: Int, entry: DeletionEntry)]) throws(DeletionJournalError) {}
        func recordOutcome(request: Int, entry: DeletionEntry, failure: SkipReason?) {}
        func single(request: Int) -> any DeletionJournal { self }
    }
}
