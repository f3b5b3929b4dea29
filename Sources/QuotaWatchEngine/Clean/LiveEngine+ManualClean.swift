import QuotaWatchCore
import QuotaWatchPolicy

/// `quotawatch clean` served by the daemon: the page from the live tree, and deletions on the
/// cleanup runner.
extension LiveEngine {
    /// `clean_list`: the storage page's files, after every change seen so far is applied.
    func answerCleanList(_ reply: ControlReply, _ live: inout LiveTree<KernelFileSystem>) {
        live.flush()
        let items = live.cleanItems(statting: false)
        var listing = CleanListing(root: options.rootDisplay, items: items, engine: view(of: live).counters)
        // The connection's thread reads each file's mtime, relative to ROOT's descriptor.
        listing.timesFrom = live.fileSystem.root
        reply.send(listing)
    }

    /// `clean_delete`: takes the storage page's files from the live tree and hands them with
    /// the selection to the runner, which plans it with the CLI's own planner (off this
    /// thread: see ``PlannedSelection``); the reply waits for the run.
    func answerCleanDelete(
        _ request: CleanDeleteRequest, _ reply: ControlReply, _ live: inout LiveTree<KernelFileSystem>
    ) {
        guard cleanup != nil else {
            reply.fail("the cleaners have not started yet; try again")
            return
        }
        guard request.dryRun || options.cleanup.deletes else {
            reply.fail(
                "this daemon was started without --clean (or with --dry-run), so it deletes nothing; "
                    + "restart it with --clean, or use --dry-run to see what would go")
            return
        }
        live.flush()
        let selection = PlannedSelection(
            items: live.cleanItems(statting: false), selection: request.selection,
            nowNanoseconds: WallClock.nanosecondsSinceEpoch(), root: live.fileSystem.root)
        cleanup!.submitSelection(
            selection, level: monitor?.level.level ?? .normal, dryRun: request.dryRun, reply: reply)
    }

    /// The cleaners a summary shows: a run that served only selections shows the selection
    /// cleaner alone; any other run leaves it out (it did nothing there).
    static func reportsShown(_ summary: CleanupSummary, served: [CleanupPlan]) -> [CleanerReport] {
        guard let selectionReport = summary.cleaners.last, selectionReport.name == ManualClean.cleanerName else {
            return summary.cleaners
        }
        let selections = served.filter { $0.selection != nil }.count
        if selections == 0 { return Array(summary.cleaners.dropLast()) }
        if selections == summary.triggers.count { return [selectionReport] }
        return summary.cleaners
    }

    /// One selection's part of a run's summary.
    static func deletionReport(_ summary: CleanupSummary, selection: [CleanItem], dryRun: Bool) -> CleanDeletionReport {
        let paths = Set(selection.map(\.path))
        let report = summary.cleaners.last { $0.name == ManualClean.cleanerName } ?? CleanerReport(name: "")
        var result = CleanupResult()
        result.removed = report.removed.filter { paths.contains($0.path) }
        result.skipped = report.skipped.filter { paths.contains($0.path) }
        var deletion = CleanDeletionReport(run: summary.runID, dryRun: dryRun || summary.dryRun, result: result)
        deletion.error = report.error
        return deletion
    }
}
