import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// The control requests cleaning serves on the engine thread: `clean` (every cleaner now) and
/// `quotawatch clean`'s page (`clean_list`) and selections (`clean_delete`), the page from the
/// live tree and the deletions on the cleanup runner.
extension CleanupParticipant {
    package func answer(_ request: ParticipantRequest, _ live: inout LiveTree<KernelFileSystem>) -> Bool {
        switch request.command {
        case .clean(let clean): answerClean(clean, request.reply)
        case .cleanList: answerCleanList(request, &live)
        case .cleanDelete(let delete): answerCleanDelete(delete, request, &live)
        default: return false
        }
        return true
    }

    /// `clean`: every cleaner now; the reply waits for the run's summary (the runner sends it).
    private func answerClean(_ request: CleanupRunRequest, _ reply: ControlReply) {
        let noted = withCoordinator { coordinator in
            coordinator.note(.manual(name: request.trigger, dryRun: request.dryRun, reply: reply))
        }
        if !noted { reply.fail("the cleaners have not started yet; try again") }
    }

    /// `clean_list`: the storage page's files, after every change seen so far is applied.
    private func answerCleanList(_ request: ParticipantRequest, _ live: inout LiveTree<KernelFileSystem>) {
        live.flush()
        let items = live.cleanItems(statting: false)
        var listing = CleanListing(root: rootDisplay, items: items, engine: request.counters)
        // The connection's thread reads each file's mtime, relative to ROOT's descriptor.
        listing.timesFrom = live.fileSystem.root
        request.reply.send(listing)
    }

    /// `clean_delete`: takes the storage page's files from the live tree and hands them with
    /// the selection to the runner, which plans it with the CLI's own planner (off this
    /// thread: see ``PlannedSelection``); the reply waits for the run.
    private func answerCleanDelete(
        _ delete: CleanDeleteRequest, _ request: ParticipantRequest, _ live: inout LiveTree<KernelFileSystem>
    ) {
        let reply = request.reply
        guard hasStarted else {
            reply.fail("the cleaners have not started yet; try again")
            return
        }
        guard delete.dryRun || deletes else {
            reply.fail(
                "this daemon was started without --clean (or with --dry-run), so it deletes nothing; "
                    + "restart it with --clean, or use --dry-run to see what would go")
            return
        }
        live.flush()
        let selection = PlannedSelection(
            items: live.cleanItems(statting: false), selection: delete.selection,
            nowNanoseconds: WallClock.nanosecondsSinceEpoch(), root: live.fileSystem.root)
        let level = request.monitor?.diskLevel ?? .normal
        _ = withCoordinator { coordinator in
            coordinator.submitSelection(selection, level: level, dryRun: delete.dryRun, reply: reply)
        }
    }
}

/// What a run that served `clean` requests and selections tells each of them.
enum ManualCleanReplies {
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
    static func deletionReport(
        _ summary: CleanupSummary, selection: [CleanItem], named: [NamedPath] = [], dryRun: Bool
    ) -> CleanDeletionReport {
        let paths = Set(selection.map(\.path))
        let report = summary.cleaners.last { $0.name == ManualClean.cleanerName } ?? CleanerReport(name: "")
        func ours(_ path: [UInt8]) -> Bool { paths.contains(path) || NamedPaths.covers(named, path) }
        var result = CleanupResult()
        result.removed = report.removed.filter { ours($0.path) }
        result.skipped = report.skipped.filter { ours($0.path) }
        var deletion = CleanDeletionReport(run: summary.runID, dryRun: dryRun || summary.dryRun, result: result)
        deletion.error = report.error
        return deletion
    }
}
