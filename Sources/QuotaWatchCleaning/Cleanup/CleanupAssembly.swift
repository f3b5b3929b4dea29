import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The composition root of cleaning, run when the ``CleanupParticipant`` starts (it needs
/// ROOT's descriptor and the registered cleaners, which exist only once the engine runs): the
/// deleter (with the audit log under `--clean`), the runner with the configured cleaners in
/// order and the selection cleaner of `quotawatch clean`, and the coordinator.
struct CleanupAssembly {
    let options: CleanupOptions
    /// ROOT as shown: absolute, escaped.
    let rootDisplay: String

    /// The coordinator, or why it cannot be built, which stops the daemon.
    func coordinator(_ start: ParticipantStart) -> Result<CleanupCoordinator, EngineFailure> {
        let root = start.root
        let config = start.config
        let settings = config.cleanup
        let sandbox = Set(
            IOSSandboxProfile.markerDirectories.filter { (try? root.status(of: Array($0.utf8)))?.kind == .directory })
        let protection = CleanupProtection(
            config: config, profileApplies: IOSSandboxProfile.applies(choice: config.profile, rootDirectories: sandbox),
            extraGlobs: settings.protect)
        let isProtected: Deleter.Protection = { protection.isProtected($0) }
        let deletes = options.deletes
        let dryBackend: UnrecordedDeleter
        let backend: any RemovalBackend
        var auditLog: AuditLog?
        // One reading of /proc serves every name checked within 100 ms (see Deleter.init(root:dryRun:isProtected:writers:)).
        let writers = OpenWritersSnapshot()
        do {
            let dryDeleter = try Deleter(root: root, dryRun: true, isProtected: isProtected, writers: writers)
            dryBackend = UnrecordedDeleter(deleter: dryDeleter)
            if deletes {
                guard let directory = options.stateDirectory else {
                    return .failure(
                        .cleanup(
                            "no state directory for the audit log of deletions: set STATE_DIRECTORY (or HOME), "
                                + "or run without --clean"))
                }
                let deleter = try Deleter(
                    root: root, dryRun: false, isProtected: isProtected, writers: writers)
                let log: AuditLog
                do {
                    log = try AuditLog(directory: directory)
                } catch {
                    return .failure(.cleanup(error.description))
                }
                log.resolveIntentsLeftOpen(using: deleter)
                backend = AuditedDeleter(deleter: deleter, log: log)
                auditLog = log
            } else {
                // Resolved on every start, deleting or not: left open, nothing would say so.
                AuditLog.resolveIntentsLeftOpen(in: options.stateDirectory, using: dryDeleter)
                backend = dryBackend
            }
        } catch {
            return .failure(.cleanup("cannot prepare the deleter on \(rootDisplay): \(error)"))
        }

        let plans = CleanupPlans()
        var timeout: Duration = .seconds(60)
        for case .command(_, _, let commandTimeout) in settings.cleaners {
            timeout = max(timeout, commandTimeout + .seconds(10))
        }
        let post = start.post
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: timeout, dryRun: !deletes, root: rootDisplay),
            backend: backend,
            instance: "\(ProcessIdentity.processID)",
            prepare: { trigger in CleanupInputs(level: plans.activate(trigger)?.level ?? .normal) },
            completion: { summary in
                var summary = summary
                let served = plans.finish(summary.triggers)
                // Every trigger of the run asked for a dry run (clean-now --dry-run).
                if !served.isEmpty, served.count == summary.triggers.count, served.allSatisfy(\.dryRun) {
                    summary.dryRun = true
                }
                summary.cleaners = ManualCleanReplies.reportsShown(summary, served: served)
                for plan in served {
                    for reply in plan.replies {
                        if let selection = plan.selection {
                            reply.send(
                                ManualCleanReplies.deletionReport(
                                    summary, selection: selection.chosen, named: selection.named,
                                    dryRun: plan.dryRun))
                        } else {
                            reply.send(summary)
                        }
                    }
                }
                post(CleanupParticipant.RunFinished(summary: summary))
            },
            // Posted, never written from here: the engine emits it; the event stream and
            // the socket's subscribers queue it on their own threads.
            reportProgress: { report in post(CleanupParticipant.RunProgress(report: report)) })
        let registered = start.registeredCleaners
        let group = RegisteredCleanerGroup(registry: registered, plans: plans)
        for (slot, spec) in settings.cleaners.enumerated() {
            guard let inner = CleanupCoordinator.cleaner(spec) else {
                runner.register(group)
                continue
            }
            runner.register(PlannedCleaner(inner: inner, slot: slot, plans: plans, dryBackend: dryBackend))
        }
        // Without a `registered` entry, registered cleaners run after the configured ones.
        if !settings.cleaners.contains(where: { $0.kind == "registered" }) { runner.register(group) }
        // Selections of `quotawatch clean`, with the user files they name let through.
        let log = auditLog
        runner.register(
            SelectionCleaner(plans: plans) { items, named, dryRun in
                let isProtected = ManualClean.protection(protection, items: items, named: named)
                // /proc read once per 100 ms of the selection, not once per file.
                let writers = OpenWritersSnapshot()
                guard
                    let deleter = try? Deleter(
                        root: root, dryRun: dryRun || log == nil, isProtected: isProtected, writers: writers)
                else { return dryRun ? dryBackend : backend }
                guard let log, !dryRun else { return UnrecordedDeleter(deleter: deleter) }
                return AuditedDeleter(deleter: deleter, log: log)
            })
        var coordinator = CleanupCoordinator(
            settings: settings, runner: runner, plans: plans, dryRun: !deletes, now: start.now,
            registered: registered)
        if let setting = settings.appVersion {
            noteAppVersion(setting, into: &coordinator)
        }
        return .success(coordinator)
    }

    /// The first start with a new app version runs every cleaner once; the version is
    /// persisted once that run is done (not after a dry run).
    private func noteAppVersion(_ setting: AppVersionSetting, into coordinator: inout CleanupCoordinator) {
        guard let directory = options.stateDirectory else {
            Log.warning("no state directory to remember the app version in; set STATE_DIRECTORY")
            return
        }
        let source: AppVersionSource
        switch setting {
        case .fixed(let version): source = .fixed(version)
        case .infoPlist(let path): source = .infoPlist(path: path)
        }
        do {
            let version = try AppVersion.read(source)
            let store = AppVersionStore(stateDirectory: directory)
            guard let trigger = store.trigger(for: version) else { return }
            coordinator.note(.trigger(trigger))
            coordinator.appVersion = (store, version)
        } catch {
            Log.warning("\(error)")
        }
    }
}
