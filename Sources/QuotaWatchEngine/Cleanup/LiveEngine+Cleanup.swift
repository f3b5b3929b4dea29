import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Whether the cleaners may delete, and where what must outlive a run is kept.
public struct CleanupOptions: Sendable {
    /// `run --clean`: the cleaners delete. Without it every run reports what it would remove.
    public var clean = false
    /// `run --dry-run`: report only, even with `--clean`.
    public var dryRun = false
    /// The audit log and the last app version seen (``StateDirectory``); nil when none can be
    /// named.
    public var stateDirectory: [UInt8]?

    public init() {}

    /// Whether anything is removed.
    public var deletes: Bool { clean && !dryRun }
}

/// The engine's side of cleaning: starting the runner after the policy layer, one planning
/// pass per turn, the summaries coming back, and the `clean` request.
extension LiveEngine {
    /// Builds the deleter (with the audit log under `--clean`), the runner with the configured
    /// cleaners in order, and the coordinator. Returns why it cannot, which stops the daemon.
    func startCleanup(root: FileDescriptor, mailbox: Mailbox) -> String? {
        guard let monitor else { return nil }
        let config = monitor.config
        let settings = config.cleanup
        let sandbox = Set(
            IOSSandboxProfile.markerDirectories.filter { (try? root.status(of: Array($0.utf8)))?.kind == .directory })
        let protection = CleanupProtection(
            config: config, profileApplies: IOSSandboxProfile.applies(choice: config.profile, rootDirectories: sandbox),
            extraGlobs: settings.protect)
        let isProtected: Deleter.Protection = { protection.isProtected($0) }
        let deletes = options.cleanup.deletes
        let dryBackend: UnrecordedDeleter
        let backend: any RemovalBackend
        var auditLog: AuditLog?
        // One reading of /proc serves every name checked within 100 ms (see Deleter.init(root:dryRun:isProtected:writers:)).
        let writers = OpenWritersSnapshot()
        do {
            dryBackend = UnrecordedDeleter(
                deleter: try Deleter(root: root, dryRun: true, isProtected: isProtected, writers: writers))
            if deletes {
                guard let directory = options.cleanup.stateDirectory else {
                    return "no state directory for the audit log of deletions: set STATE_DIRECTORY (or HOME), "
                        + "or run without --clean"
                }
                let deleter = try Deleter(
                    root: root, dryRun: false, isProtected: isProtected, writers: writers)
                let log: AuditLog
                do {
                    log = try AuditLog(directory: directory)
                } catch {
                    return error.description
                }
                // An intent without an outcome: the daemon died between the two last time.
                if let recovered = try? log.recover(using: deleter), !recovered.isEmpty {
                    let gone = recovered.filter { !$0.present }.count
                    Self.warn(
                        "the audit log had \(recovered.count) deletion(s) without an outcome; "
                            + "\(gone) are gone, recorded as such")
                }
                backend = AuditedDeleter(deleter: deleter, log: log)
                auditLog = log
            } else {
                backend = dryBackend
            }
        } catch {
            return "cannot prepare the deleter on \(options.rootDisplay): \(error)"
        }

        let plans = CleanupPlans()
        var timeout: Duration = .seconds(60)
        for case .command(_, _, let commandTimeout) in settings.cleaners {
            timeout = max(timeout, commandTimeout + .seconds(10))
        }
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(timeout: timeout, dryRun: !deletes, root: options.rootDisplay),
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
                summary.cleaners = Self.reportsShown(summary, served: served)
                for plan in served {
                    for reply in plan.replies {
                        if let selection = plan.selection {
                            reply.send(Self.deletionReport(summary, selection: selection.chosen, dryRun: plan.dryRun))
                        } else {
                            reply.send(summary)
                        }
                    }
                }
                mailbox.post(.cleanupFinished(summary))
            },
            // Posted, never written from here: the engine emits it; the event stream and
            // the socket's subscribers queue it on their own threads.
            reportProgress: { report in mailbox.post(.cleanupProgress(report)) })
        let group = registeredCleaners.map { RegisteredCleanerGroup(registry: $0, plans: plans) }
        for (slot, spec) in settings.cleaners.enumerated() {
            guard let inner = CleanupCoordinator.cleaner(spec) else {
                if let group { runner.register(group) }
                continue
            }
            runner.register(PlannedCleaner(inner: inner, slot: slot, plans: plans, dryBackend: dryBackend))
        }
        // Without a `registered` entry, registered cleaners run after the configured ones.
        if let group, !settings.cleaners.contains(where: { $0.kind == "registered" }) { runner.register(group) }
        // Selections of `quotawatch clean`, with the user files they name let through.
        let log = auditLog
        runner.register(
            SelectionCleaner(plans: plans) { items, dryRun in
                let isProtected = ManualClean.protection(protection, items: items)
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
            settings: settings, runner: runner, plans: plans, dryRun: !deletes, now: clock.now,
            registered: registeredCleaners)
        if let setting = settings.appVersion {
            noteAppVersion(setting, into: &coordinator)
        }
        cleanup = coordinator
        return nil
    }

    /// The first start with a new app version runs every cleaner once; the version is
    /// persisted once that run is done (not after a dry run).
    private func noteAppVersion(_ setting: AppVersionSetting, into coordinator: inout CleanupCoordinator) {
        guard let directory = options.cleanup.stateDirectory else {
            Self.warn("no state directory to remember the app version in; set STATE_DIRECTORY")
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
            Self.warn("\(error)")
        }
    }

    static func warn(_ message: String) {
        Log.warning(message)
    }

    /// After the policy's pass: plans and submits the triggers noted this turn, holds the
    /// states of the breached directories a run now cleans, and lets go of those settled.
    func cleanupTurn(_ live: inout LiveTree<KernelFileSystem>) {
        guard var cleanup else { return }
        cleanup.turn(&live, monitor: monitor, now: clock.now)
        let settled = cleanup.settling.takeSettled(live.tree, now: clock.now)
        self.cleanup = cleanup
        holdCleanedDirectories(live)
        guard !settled.isEmpty, monitor != nil else { return }
        for path in settled {
            guard let directory = CleanupSettling.directory(path, in: live.tree) else { continue }
            monitor?.book.release(directory)
            monitor?.attachedSinceEvaluation.append(directory)
        }
        // Evaluated now: the loop may sleep until the next change.
        policyTurn(&live)
    }

    /// Every directory a run was submitted for is held until it settles (``CleanupSettling``).
    private func holdCleanedDirectories(_ live: LiveTree<KernelFileSystem>) {
        guard let cleanup, monitor != nil else { return }
        for path in cleanup.settling.paths {
            guard let directory = CleanupSettling.directory(path, in: live.tree),
                monitor?.book.isHeld(directory) == false
            else { continue }
            monitor?.book.hold(directory)
        }
    }

    /// Opens noted for `order: lru` (they change no size); the rest go to the tree.
    func takeOpens(_ batch: [FileSystemChange], _ live: LiveTree<KernelFileSystem>) -> [FileSystemChange] {
        guard cleanup?.opens.isActive == true else { return batch }
        return cleanup!.opens.take(batch, live, now: WallClock.nanosecondsSinceEpoch())
    }

    /// A run ended: its `cleanup` event, the periodic clock restarted, the app version kept.
    func cleanupFinished(_ summary: CleanupSummary) {
        emit(.cleanup(summary))
        // A cleaner stopped (a full audit log, a timeout): said on stderr too, not only in the event.
        for report in summary.cleaners { if let error = report.error { Self.warn("cleaner \(report.name): \(error)") } }
        guard var cleanup else { return }
        cleanup.ran(at: clock.now)
        cleanup.settling.finished(summary, now: clock.now)
        if let (store, version) = cleanup.appVersion, !summary.dryRun,
            summary.triggers.contains(where: { if case .appVersion = $0 { true } else { false } })
        {
            do {
                try store.record(version)
            } catch {
                Self.warn(
                    "cannot remember app version \(version) in "
                        + "\(HumanText.name(store.path)): \(error); the next start cleans again")
            }
            cleanup.appVersion = nil
        }
        self.cleanup = cleanup
    }

    /// `clean`: every cleaner now; the reply waits for the run's summary (the runner sends it).
    func answerClean(_ request: CleanRequest, _ reply: ControlReply) {
        guard cleanup != nil else {
            reply.fail("the cleaners have not started yet; try again")
            return
        }
        cleanup!.note(.manual(name: request.trigger, dryRun: request.dryRun, reply: reply))
    }
}
