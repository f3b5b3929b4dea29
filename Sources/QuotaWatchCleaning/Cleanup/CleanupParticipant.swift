import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Cleaning as an ``EngineParticipant``: the cleanup triggers (breaches, levels, leftovers, the
/// periodic deadline, a new app version, `clean`) planned on the live tree at the end of every
/// turn and run off the engine thread by the ``CleanupRunner``; the last-open log of
/// `order: lru`, fed by the opens taken out of each batch; the breached directories held until
/// their run settles; and `quotawatch clean`'s page and selections (`clean_list`,
/// `clean_delete`). Built by the `run` command; its composition root (``CleanupAssembly``)
/// runs when the engine starts it.
package final class CleanupParticipant: EngineParticipant {
    /// A run ended (posted by the runner's completion, with its summary).
    struct RunFinished: Sendable {
        let summary: CleanupSummary
    }

    /// A cleaner of a run going on reported how far it has got.
    struct RunProgress: Sendable {
        let report: CleanupProgressReport
    }

    /// Touched on the engine thread only, and checked to be.
    private let state = ThreadBound<CleanupCoordinator?>(nil, name: "the cleanup participant's coordinator")
    private let assembly: CleanupAssembly

    /// `options` say whether the cleaners delete; `rootDisplay` is ROOT as shown.
    package init(options: CleanupOptions, rootDisplay: String) {
        assembly = CleanupAssembly(options: options, rootDisplay: rootDisplay)
    }

    /// Whether anything is removed (`run --clean` without `--dry-run`).
    package var deletes: Bool { assembly.options.deletes }

    var rootDisplay: String { assembly.rootDisplay }

    var hasStarted: Bool { state.withValue { $0 != nil } }

    /// Runs `body` on the coordinator; false before it has started.
    func withCoordinator(_ body: (inout CleanupCoordinator) -> Void) -> Bool {
        state.withValue { coordinator in
            guard coordinator != nil else { return false }
            body(&coordinator!)
            return true
        }
    }

    package func start(_ start: ParticipantStart) -> EngineFailure? {
        switch assembly.coordinator(start) {
        case .success(let coordinator):
            state.withValue { $0 = coordinator }
            return nil
        case .failure(let failure):
            return failure
        }
    }

    package var nextDeadline: UInt64? { state.withValue { $0?.nextDeadline } }

    /// Opens noted for `order: lru` (they change no size); the rest go to the tree.
    package func changes(_ batch: [FileSystemChange], in live: LiveTree<KernelFileSystem>) -> [FileSystemChange] {
        state.withValue { coordinator in
            guard coordinator?.opens.isActive == true else { return batch }
            return coordinator!.opens.take(batch, live, now: WallClock.nanosecondsSinceEpoch())
        }
    }

    /// After the policy's pass: plans and submits the triggers noted this turn, holds the
    /// states of the breached directories a run now cleans, and lets go of those settled
    /// (the policy is then evaluated again, so the loop may sleep until the next change).
    package func endTurn(
        _ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor?, now: UInt64
    )
        -> Bool
    {
        state.withValue { coordinator in
            guard coordinator != nil else { return false }
            return coordinator!.endTurn(&live, &monitor, now: now)
        }
    }

    package func published(_ event: PolicyEvent) {
        state.withValue { $0?.note(event) }
    }

    /// A run ended: its `cleanup` event, the periodic clock restarted, the app version kept.
    package func received(_ message: any Sendable, _ output: ParticipantOutput) {
        if let progress = message as? RunProgress {
            output.emit(.cleanupProgress(progress.report))
            return
        }
        guard let finished = message as? RunFinished else { return }
        let summary = finished.summary
        output.emit(.cleanup(summary))
        // A cleaner stopped (a full audit log, a timeout): said on stderr too, not only in the event.
        for report in summary.cleaners {
            if let error = report.error { Log.warning("cleaner \(report.name): \(error)") }
        }
        state.withValue { coordinator in
            guard coordinator != nil else { return }
            coordinator!.finished(summary, now: output.now)
            guard let (store, version) = coordinator!.appVersion, !summary.dryRun,
                summary.triggers.contains(where: { if case .appVersion = $0 { true } else { false } })
            else { return }
            do {
                try store.record(version)
            } catch {
                Log.warning(
                    "cannot remember app version \(version) in "
                        + "\(HumanText.name(store.path)): \(error); the next start cleans again")
            }
            coordinator!.appVersion = nil
        }
    }

    /// The cleaners stay as they started: the runner holds them and a run may be under way.
    package func reloaded(_ config: PolicyConfig) {
        let changed = state.withValue { $0.map { $0.settings != config.cleanup } ?? false }
        guard changed else { return }
        Log.plain(
            .warning,
            "SIGHUP: 'cleaners', 'periodic', 'app_version' and 'protect' changed in the config; "
                + "the cleaners in force stay until the daemon is restarted (quotas, levels, leftovers and "
                + "hooks are reloaded now)")
    }

    /// Cancels the cleaner call going on and joins the runner's thread.
    package func stop() {
        state.withValue { $0?.runner }?.stop()
    }
}
