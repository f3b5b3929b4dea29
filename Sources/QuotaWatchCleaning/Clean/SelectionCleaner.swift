import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The daemon's cleaner for selections of the storage page: registered after the configured
/// cleaners, it does nothing unless the run serves a `clean_delete` plan, whose files the
/// engine thread took from the live tree and which is planned here (``PlannedSelection``). Running on the cleanup runner, it never
/// overlaps an automatic run.
struct SelectionCleaner: Cleaner {
    let name = ManualClean.cleanerName
    let plans: CleanupPlans
    /// The backend for one selection: its user files and named paths allowed, recording or not.
    let backend: @Sendable (_ items: [CleanItem], _ named: [NamedPath], _ dryRun: Bool) -> any RemovalBackend

    func clean(_ context: CleanupContext) throws -> CleanupResult {
        guard let plan = plans.active(context.trigger), let selection = plan.selection else {
            return CleanupResult()
        }
        let (items, named) = (selection.chosen, selection.named)
        let remover = Remover(
            backend: backend(items, named, context.dryRun || plan.dryRun), trigger: context.remover.trigger,
            cleaner: name,
            run: context.runID, progress: context.remover.progress)
        return try ManualClean.remove(items, named: named, remover: remover, cancellation: context.cancellation)
    }
}
