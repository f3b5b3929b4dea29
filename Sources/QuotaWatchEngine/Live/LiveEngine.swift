import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

public struct EngineOptions: Sendable {
    public var root: [UInt8]
    /// The root as shown in reports: absolute, escaped.
    public var rootDisplay: String
    public var socketPath: [UInt8]
    public var crawl = CrawlOptions()
    /// Changes to one file are stat'ed at most once per this period.
    public var settle: Duration = .milliseconds(20)
    /// Subtrees without a watch are re-listed this often.
    public var pollInterval: Duration = .seconds(2)
    public var emitsEvents = false
    public var traces = false
    /// `--backend`: inotify watches, a fanotify filesystem mark, or fanotify where it works.
    public var backend: BackendChoice = .inotify
    /// Quotas, budgets, disk levels and forecasts (see ``PolicyMonitor``).
    public var policy = PolicyConfig()
    /// Reads the config again on SIGHUP; nil when there is no file to read (the rules came
    /// from the command line only). A thrown error's description is reported as it is.
    public var reloadPolicy: (@Sendable () throws -> PolicyConfig)?
    /// Whether cleaners may delete, and where the audit log goes (see ``CleanupOptions``).
    public var cleanup = CleanupOptions()
    /// Told of the engine's life, its events and, when they ask, its tree (``EngineObserver``).
    public var observers: [any EngineObserver] = []

    public init(root: [UInt8], rootDisplay: String, socketPath: [UInt8]) {
        self.root = root
        self.rootDisplay = rootDisplay
        self.socketPath = socketPath
    }
}

/// Why `quotawatch run` stopped.
public enum EngineExit: Sendable, Equatable {
    case signal(Int32)
    /// ``LiveEngine/stop()`` asked it to.
    case stopped
    case failure(String)
}

/// `quotawatch run`: crawls once, then keeps the tree exact from inotify events, answering
/// control requests on the socket, until a termination signal.
///
/// Threads: one drains the inotify queue, one waits for signals, the control server answers
/// connections, one writes event lines; this one, the engine thread, is the only owner of
/// the tree and never waits on any of them. When ``run(progress:)`` returns, every one of them
/// has been joined and the inotify descriptor is closed.
///
/// Sendable only so that another thread can call ``stop()``, which touches nothing but the
/// mailbox; everything else belongs to the thread inside ``run(progress:)``.
public final class LiveEngine: @unchecked Sendable {
    let options: EngineOptions
    let mailbox = Mailbox()
    let clock = MonotonicEngineClock()
    private var events: LineWriter?
    /// Replies waiting for their sync marker, by marker.
    private var pendingSyncs: [[UInt8]: (reply: ControlReply, query: StatusQuery)] = [:]
    private var schedule: EngineSchedule
    private var markerCounter = 0
    private let markerPrefix: [UInt8]
    private var reportedDegraded: [String] = []
    private var requestsAnswered: UInt64 = 0
    /// The backend in use and why, for `ready`, `status` and the log.
    private var backendName = "inotify"
    private var backendReason = ""
    /// The control socket's event stream (`{"command":"events"}`), fed by emit and publish.
    private var eventFeed: ControlEventFeed?
    /// Quotas and disk levels; set once the first crawl is done.
    var monitor: PolicyMonitor?
    /// Runs the alert hooks off this thread; nil when none is configured.
    var hooks: HookRunner?
    /// Cleanup triggers and runs; set once the policy layer has started.
    var cleanup: CleanupCoordinator?
    /// Mounts and unmounts below ROOT; nil when the mount table cannot be read.
    var mounts: MountFollower?

    public init(options: EngineOptions) {
        self.options = options
        schedule = EngineSchedule(settle: options.settle, pollInterval: options.pollInterval, now: clock.now)
        markerPrefix = Array(".quotawatch-sync.\(ProcessIdentity.processID).".utf8)
    }

    /// Asks ``run(progress:)``, running on another thread, to return ``EngineExit/stopped`` as
    /// it returns after a signal: everything it started stopped and joined.
    public func stop() { mailbox.post(.stop) }

    /// Runs until a signal, ``stop()`` or a fatal condition. `progress` sees the first crawl.
    public func run(progress: ((CrawlProgress) -> Void)?) -> EngineExit {
        let opened: (descriptor: FileDescriptor, status: FileStatus)
        do {
            opened = try TreeScanner().openRoot(options.root)
        } catch {
            return .failure(error.description)
        }
        let root = opened.descriptor
        defer { root.close() }

        // libdispatch makes its epoll descriptor when a global queue first starts a worker, and
        // traps if it cannot: start one now, while descriptors are plentiful, for the Swift
        // concurrency (cleanup runs) and Dispatch users that come later.
        DispatchQueue.global().async {}

        let server: ControlServer
        do {
            let mailbox = self.mailbox
            server = try ControlServer(socketPath: options.socketPath) { request, reply in
                mailbox.post(.request(request, reply))
            }
        } catch {
            return .failure("\(error)")
        }
        server.start()
        eventFeed = server.events
        // Answers the requests still waiting (syncs included) with "shutting down", then
        // joins every connection thread.
        defer { server.stop() }

        let selected: SelectedBackend
        switch WatchBackendSelection.open(
            options.backend, root: root, inotify: { () throws(Errno) in try InotifyDescriptor() })
        {
        case .success(let backend): selected = backend
        case .failure(.inotify(let error)):
            return .failure(
                "cannot start inotify: \(error). Check fs.inotify.max_user_instances (now \(InotifyLimits.current().maxUserInstances))."
            )
        case .failure(.fanotify(let unavailable)):
            return .failure("--backend fanotify cannot work here: \(unavailable.reason)")
        }
        backendName = selected.backend.name
        backendReason = selected.reason
        Log.notice("watching \(options.rootDisplay) with \(backendName) (\(backendReason))")
        let source: any KernelEventSource
        switch selected.backend {
        case .inotify(let inotify): source = inotify
        case .fanotify(let watches): source = FanotifyEventSource(watches: watches)
        }
        let reader: InotifyReader
        do {
            reader = try InotifyReader(source: source, mailbox: mailbox)
        } catch {
            source.close()
            return .failure("cannot start the \(backendName) reader: \(error)")
        }
        reader.start()
        defer { reader.stop() }

        let signals: TerminationSignalWaiter
        do {
            signals = try TerminationSignalWaiter()
        } catch {
            return .failure("cannot wait for signals: \(error)")
        }
        let mailbox = self.mailbox
        let signalThread = JoinableThread(name: "signals") {
            while let signal = signals.wait() {
                guard signal == TerminationSignals.hangup else {
                    mailbox.post(.shutdown(signal: signal))
                    return
                }
                mailbox.requestReload()
            }
        }
        defer {
            signals.stop()
            signalThread.join()
            signals.close()
        }

        if options.emitsEvents { events = LineWriter(descriptor: .standardOutput) }
        defer {
            events?.stop()
            events = nil
        }

        // Read before the first crawl, so that no mount made during it goes unseen.
        mounts = MountFollower(rootPath: root.canonicalPath)
        mounts?.start(mailbox: mailbox)
        defer {
            mounts?.stop()
            mounts = nil
        }
        let fileSystem = KernelFileSystem(root: root, backend: selected.backend, options: options.crawl)
        // The crawl's tree and report live only inside this block: a copy of the tree held for
        // the rest of the run would make the first change copy every array of the live one, and
        // the report of a freshly filled directory holds a name for every file in it.
        var live: LiveTree<KernelFileSystem>
        do {
            let (tree, report) = try fileSystem.crawlInitial(progress: progress)
            live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: markerPrefix)
        } catch {
            return .failure(error.description)
        }
        live.oneFileSystem = options.crawl.oneFileSystem
        live.restatsLinkedInodesAtSync = selected.backend.inotify != nil
        // The crawl's listings are freed by now; what they leave free in the heap goes back
        // before the daemon says it is ready, not at the first quiet moment after an event.
        MemoryTuning.returnFreeMemory()
        let rootName = Array(options.root.split(separator: UInt8(ascii: "/")).last ?? [])
        if let watch = fileSystem.watchRootParent(rootName: rootName, rootStatus: opened.status) {
            live.rootParent = (watch, rootName)
        }
        let total = live.tree.tally(of: live.tree.root)
        emit(
            .ready(
                directories: live.tree.directoryCount, files: live.tree.fileCount, allocated: total.allocated,
                seconds: seconds(since: 0), backend: backendName, backendReason: backendReason))
        reportDegradation(of: live)
        if let failure = startHooks(options.policy.hooks) { return .failure(failure) }
        defer { stopHooks() }
        let startEvents = startPolicy(&live, root: root)
        if let failure = startCleanup(root: root, mailbox: mailbox) { return .failure(failure) }
        for event in startEvents { publish(event) }
        notifyObservers(.ready, live)
        let exit = loop(&live)
        notifyObservers(.stopping, live)
        return exit
    }

    // MARK: The loop

    private func loop(_ live: inout LiveTree<KernelFileSystem>) -> EngineExit {
        schedule.flushed(at: clock.now)
        schedule.polled(at: clock.now)
        while true {
            let deadline = schedule.wakeDeadline(conditions(live)).map(clock.instant(of:))
            for message in mailbox.take(until: deadline) {
                switch message {
                case .events(let events):
                    let batch = takeOpens(events, live)
                    if options.traces { trace(batch, live.tree, live) }
                    let wasOverflowed = live.needsResync
                    live.apply(batch, now: clock.now)
                    if live.mountTableMayHaveChanged { followMounts(&live) }
                    if live.needsResync && !wasOverflowed {
                        emit(.overflow)
                        schedule.overflowed(at: clock.now)
                    }
                case .filesChanged(let files):
                    for file in files { live.fileChanged(device: file.device, inode: file.inode, now: clock.now) }
                case .request(let request, let reply):
                    answer(request, reply, &live)
                case .shutdown(let signal):
                    return .signal(signal)
                case .reload:
                    schedule.reloadRequested(at: clock.now)
                case .hookFailed(let failure):
                    reportHookFailure(failure)
                case .stop:
                    return .stopped
                case .readerFailed(let error):
                    return .failure("reading \(backendName) events failed: \(error)")
                case .cleanupFinished(let summary):
                    cleanupFinished(summary)
                case .mountsChanged:
                    followMounts(&live)
                }
            }
            let now = clock.now
            live.runTimers(now: now)
            completeSyncs(&live)
            // Asked in turn, since each step changes what the next one finds: an expired sync no
            // longer forces a resync, and a resync changes what is pending.
            expireSyncs(schedule.due(conditions(live), now: now).expiredSyncs, &live)
            if schedule.due(conditions(live), now: now).resync { resync(&live) }
            let due = schedule.due(conditions(live), now: now)
            if due.reload {
                schedule.reloaded()
                reloadPolicy(&live)
            }
            if due.flush {
                live.flush()
                schedule.flushed(at: now)
            }
            if due.poll {
                live.pollDegraded()
                schedule.polled(at: now)
                reportDegradation(of: live)
            }
            policyTurn(&live)
            cleanupTurn(&live)
            observerTurn(live, now: now)
            if live.rootIsGone {
                let message =
                    "the root \(options.rootDisplay) was deleted or moved away; nothing is left to watch. "
                    + "Recreate it and start 'quotawatch run' again."
                emit(.rootGone(message: message))
                for pending in pendingSyncs.values { pending.reply.fail(message) }
                pendingSyncs.removeAll()
                return .failure(message)
            }
        }
    }

    private func conditions(_ live: LiveTree<KernelFileSystem>) -> LoopConditions {
        LoopConditions(
            hasPendingWork: live.hasPendingWork, timerDeadline: live.nextDeadline,
            hasUnwatchedDirectories: live.hasUnwatchedDirectories, needsResync: live.needsResync,
            policyDeadline: ([monitor?.nextDeadline, cleanup?.nextDeadline] + options.observers.map(\.nextTurn))
                .compactMap { $0 }.min())
    }

    // MARK: Requests and syncs

    private func answer(_ request: ControlRequest, _ reply: ControlReply, _ live: inout LiveTree<KernelFileSystem>) {
        requestsAnswered += 1
        let query: StatusQuery
        switch request.command {
        case .status(let status): query = status
        case .clean(let clean): return answerClean(clean, reply)
        case .cleanList: return answerCleanList(reply, &live)
        case .cleanDelete(let delete): return answerCleanDelete(delete, reply, &live)
        case .events: return reply.fail("the event stream is served by the control server, not the engine")
        }
        guard request.sync else {
            live.flush()
            respond(reply, query, &live)
            return
        }
        if live.tree.watch(of: live.tree.root) < 0 {
            // No watch on the root means no marker event: polling keeps the tallies instead.
            followMounts(&live)
            live.settleForSync()
            respond(reply, query, &live)
            return
        }
        markerCounter += 1
        let marker = markerPrefix + Array("\(markerCounter)".utf8)
        do {
            do {
                try live.fileSystem.root.createExclusiveFile(marker)
            } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
                // The cached directory descriptors are what can be given back at once.
                live.fileSystem.handles.forgetAll()
                DescriptorShortage.report("creating the sync marker", limit: ResourceLimits.openFileLimit())
                try live.fileSystem.root.createExclusiveFile(marker)
            }
            pendingSyncs[marker] = (reply, query)
            schedule.syncStarted(marker, at: clock.now)
        } catch {
            if let status = try? live.fileSystem.root.status(), status.linkCount == 0 {
                // Deleted while we hold it open, which also holds back its IN_DELETE_SELF.
                live.noteRootGone()
                pendingSyncs[marker] = (reply, query)
                schedule.syncStarted(marker, at: clock.now)
                return
            }
            guard !DescriptorShortage.isShortage(error) else {
                reply.fail(
                    DescriptorShortage.message("creating the sync marker", limit: ResourceLimits.openFileLimit()))
                return
            }
            reply.fail(
                "cannot create the sync marker in \(options.rootDisplay): \(error); "
                    + "a sync needs write access to the root (status without --sync works without it)")
        }
    }

    /// Every sync whose marker has come back through the queue has seen all earlier changes.
    private func completeSyncs(_ live: inout LiveTree<KernelFileSystem>) {
        guard !live.markersSeen.isEmpty else { return }
        for marker in live.markersSeen {
            live.acknowledgeMarker(marker)
            guard let pending = pendingSyncs.removeValue(forKey: marker) else { continue }
            schedule.syncEnded(marker)
            try? live.fileSystem.root.unlink(marker)
            if live.needsResync { resync(&live) }
            // A mount made before the request may not have reached the mailbox yet.
            followMounts(&live)
            live.settleForSync()
            respond(pending.reply, pending.query, &live)
        }
    }

    private func expireSyncs(_ markers: [[UInt8]], _ live: inout LiveTree<KernelFileSystem>) {
        for marker in markers {
            schedule.syncEnded(marker)
            guard let pending = pendingSyncs.removeValue(forKey: marker) else { continue }
            try? live.fileSystem.root.unlink(marker)
            pending.reply.fail(
                "the sync marker did not come back through the inotify queue within "
                    + "\(schedule.syncTimeout.components.seconds) s; try again, or use status without --sync")
        }
    }

    /// Hands the selected rows and the counters to the connection's thread, which encodes
    /// them: the engine's cost is the rows selected, never the whole tree.
    private func respond(_ reply: ControlReply, _ query: StatusQuery, _ live: inout LiveTree<KernelFileSystem>) {
        // A reply that shows a subtree degraded comes with its event and log line.
        reportDegradation(of: live)
        guard case .tree(let selection) = query else {
            // Every change applied so far is evaluated first, so the rows agree with the tree.
            policyTurn(&live)
            guard let monitor else {
                reply.fail("the policy layer has not started yet; try again")
                return
            }
            reply.send(monitor.snapshot(root: options.rootDisplay, tree: live.tree, now: clock.now))
            return
        }
        guard let rows = live.tree.rows(selection) else {
            reply.fail(
                "\(options.rootDisplay) has no directory '\(HumanText.name(selection.subtree))'; "
                    + "give a path relative to the root as status --json shows it")
            return
        }
        reply.send(StatusSnapshot(root: options.rootDisplay, rows: rows, engine: view(of: live).counters))
    }

    // MARK: Overflow and degradation

    private func resync(_ live: inout LiveTree<KernelFileSystem>) {
        let start = clock.now
        // Events queued before the crawl describe a past the crawl will see anyway.
        let stale = mailbox.take(until: clock.instant(of: start))
        for message in stale { requeueNonEvents(message) }
        mounts?.resetBaseline()
        guard let listed = live.resync() else { return }
        schedule.resynced(at: clock.now)
        emit(.resynced(directories: listed, seconds: seconds(since: start)))
        // A new tree with new ids: placed afresh, and every directory past a line reported again.
        var events = monitor?.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now()) ?? []
        events += leftoverTurn(&live, changed: [])
        for event in events { publish(event) }
        reportDegradation(of: live)
        // The fresh crawl began after every waiting sync was asked for, so it answers them all.
        for (marker, pending) in pendingSyncs {
            try? live.fileSystem.root.unlink(marker)
            live.settleForSync()
            respond(pending.reply, pending.query, &live)
        }
        pendingSyncs.removeAll()
        schedule.allSyncsEnded()
    }

    private func requeueNonEvents(_ message: EngineMessage) {
        switch message {
        case .events, .filesChanged: return
        default: break
        }
        mailbox.post(message)
    }

    private func reportDegradation(of live: LiveTree<KernelFileSystem>) {
        let tree = live.tree
        let paths = live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) }
        guard paths != reportedDegraded else { return }
        reportedDegraded = paths
        guard !paths.isEmpty else { return }
        let limits = InotifyLimits.current()
        let limit = limits.effectiveMaxUserWatches
        let needed = tree.directoryCount + 64
        var where_ = "fs.inotify.max_user_watches is \(limits.maxUserWatches)"
        if let namespaceLimit = limits.userNamespaceMaxWatches, namespaceLimit < limits.maxUserWatches {
            where_ += " and this user namespace allows \(namespaceLimit) (/proc/sys/user/max_inotify_watches)"
        }
        if live.isShortOfDescriptors {
            // Not the watch limit: directories that could not be opened for lack of descriptors.
            let message =
                DescriptorShortage.message(
                    "listing \(paths.count) subtree(s) of \(options.rootDisplay)", limit: ResourceLimits.openFileLimit()
                )
                + "; until they can be listed their totals are not exact, and they are listed again every "
                + "\(options.pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            emit(.degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message))
            return
        }
        if backendName == "fanotify" {
            // Not a watch limit: a file system below the root that takes no filesystem mark.
            let message =
                "\(paths.count) subtree(s) of \(options.rootDisplay) are on a file system fanotify cannot mark ("
                + (live.fileSystem.backend.unmarkableReasons.map(\.description).joined(separator: ", "))
                + "); they are listed again every \(options.pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            emit(.degraded(paths: paths, watchesNeeded: 0, maxUserWatches: limit, message: message))
            return
        }
        let message =
            "inotify watch limit reached: \(where_); \(options.rootDisplay) needs about \(needed) watches "
            + "(one per directory, shared with other programs of this user). Raise it with "
            + "'sysctl fs.inotify.max_user_watches=\(max(needed * 2, limits.maxUserWatches))' (persist it in "
            + "/etc/sysctl.d/) or raise /proc/sys/user/max_inotify_watches in the namespace. Until then "
            + "\(paths.count) subtree(s) are polled every \(options.pollInterval.components.seconds) s: "
            + paths.prefix(5).joined(separator: ", ")
        Log.warning(message)
        emit(.degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message))
    }

    // MARK: Plumbing

    func emit(_ event: EngineEvent) { deliver(.engine(event)) }

    /// Where every policy event leaves the engine: the event stream, observers, hooks and
    /// the cleanup triggers.
    func publish(_ event: PolicyEvent) {
        deliver(.policy(event))
        // A hook that fails is not sent its own failure: that would run it again, and fail again.
        var failedHook: String?
        if case .hookFailed(let hook, _, _, _, _) = event.detail { failedHook = hook }
        hooks?.submit(event.hookEvent, except: failedHook)
        cleanup?.note(event)
    }

    /// To `--events`, the socket's subscribers and the observers, in that order. The line is
    /// encoded once, and only when a reader of lines is there.
    private func deliver(_ event: ObservedEvent) {
        let feed = eventFeed.flatMap { $0.hasSubscribers ? $0 : nil }
        if events != nil || feed != nil {
            let line = event.jsonLine
            events?.write(line)
            feed?.publish(line)
        }
        for observer in options.observers { observer.engineEmitted(event) }
    }

    func view(of live: LiveTree<KernelFileSystem>) -> EngineView {
        let tree = live.tree
        let counters = EngineReport(
            events: live.counters.events, rescannedDirectories: live.counters.rescannedDirectories,
            overflows: live.counters.overflows, watches: live.watchCount,
            degraded: live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) },
            requests: requestsAnswered, cpuSeconds: Self.seconds(ThreadCPUTime.current()), backend: backendName,
            backendReason: backendReason)
        return EngineView(
            now: clock.now, rootDisplay: options.rootDisplay, tree: tree, counters: counters,
            isResyncing: live.needsResync, monitor: monitor)
    }

    func notifyObservers(_ change: EngineLifecycle, _ live: LiveTree<KernelFileSystem>) {
        guard !options.observers.isEmpty else { return }
        let view = view(of: live)
        for observer in options.observers { observer.engine(change, view) }
    }

    /// Gives each observer whose turn is due a look at the tree.
    private func observerTurn(_ live: LiveTree<KernelFileSystem>, now: UInt64) {
        let due = options.observers.filter { observer in observer.nextTurn.map { $0 <= now } ?? false }
        guard !due.isEmpty else { return }
        let view = view(of: live)
        for observer in due { observer.engineTurn(view) }
    }

    private func trace(_ batch: [InotifyEvent], _ tree: TallyTree, _ live: LiveTree<KernelFileSystem>) {
        var text = ""
        for event in batch {
            let directory = live.directory(forWatch: event.watch)
            let path = directory.map { directory in
                directory == tree.root
                    ? options.rootDisplay
                    : options.rootDisplay + "/" + HumanText.name(tree.relativePath(of: directory))
            }
            text +=
                "\(path ?? "?") \(InotifyEventNames.describe(event.mask.rawValue)) \(HumanText.name(event.name))\n"
        }
        Log.requested(text)
    }

    private func seconds(since start: UInt64) -> Double {
        Double(clock.now - min(start, clock.now)) / 1e9
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
