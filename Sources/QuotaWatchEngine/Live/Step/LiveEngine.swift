import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's step on the kernel and the monotonic clock.
typealias KernelStep = EngineStep<KernelFileSystem, MonotonicEngineClock>

/// `quotawatch run`: crawls once, then keeps the tree exact from inotify events, answering
/// control requests on the socket, until a termination signal.
///
/// Threads: one drains the inotify queue, one waits for signals, the control server answers
/// connections, one writes event lines; this one, the engine thread, is the only owner of
/// the tree and never waits on any of them. When ``run(progress:)`` returns, every one of them
/// has been joined and the inotify descriptor is closed.
///
/// The engine owns the loop and the parts it drives on its thread, all made in
/// ``run(progress:)``: the ``EngineStep``, the ``EnginePublisher`` (where events and views
/// leave), the ``EnginePolicy`` (the policy layer and the participants' end of turn), the
/// ``ControlRequestHandler`` (requests and syncs, with the ``EngineResync``) and the
/// participants themselves. Another thread may only call ``stop()``.
package final class LiveEngine: Sendable {
    let options: EngineOptions
    let mailbox = Mailbox()
    let clock = MonotonicEngineClock()

    package init(options: EngineOptions) {
        self.options = options
    }

    /// Asks ``run(progress:)``, running on another thread, to return ``EngineExit/stopped`` as
    /// it returns after a signal: everything it started stopped and joined.
    package func stop() { mailbox.post(.stop) }

    /// Stops as after `signal`, for an engine whose process waits for signals on its behalf
    /// (``EngineOptions/waitsForSignals`` false).
    package func shutdown(signal: Int32) { mailbox.post(.shutdown(signal: signal)) }

    /// Reads the config again, as after SIGHUP.
    package func reload() { mailbox.requestReload() }

    /// Runs until a signal, ``stop()`` or a fatal condition. `progress` sees the first crawl.
    package func run(progress: ((CrawlProgress) -> Void)?) -> EngineExit {
        let services: EngineServices
        switch EngineServices.start(options, mailbox: mailbox) {
        case .success(let started): services = started
        case .failure(let failure): return .failure(failure)
        }
        defer { services.stop() }
        let (root, backend) = (services.root, services.backend)
        let reporter = EngineReporter(backendName: services.backendName, backendReason: services.backendReason)
        let publisher = EnginePublisher(
            options: options, reporter: reporter, clock: clock, events: services.events, feed: services.server.events)
        let policy = EnginePolicy(options: options, publisher: publisher, clock: clock)
        let resync = EngineResync(
            mailbox: mailbox, mounts: services.mounts, policy: policy, publisher: publisher, clock: clock)
        let requests = ControlRequestHandler(
            options: options, policy: policy, publisher: publisher, resync: resync, mounts: services.mounts,
            clock: clock)
        let fileSystem = KernelFileSystem(root: root, backend: backend, options: options.crawl)
        // The crawl's tree and report live only inside this block: a copy of the tree held for
        // the rest of the run would make the first change copy every array of the live one, and
        // the report of a freshly filled directory holds a name for every file in it.
        var step: KernelStep
        // Roots served together crawl in turn (``SharedRootServices/beginCrawl()``).
        let shared = options.sharedServices
        shared?.beginCrawl()
        do {
            let (tree, report) = try fileSystem.crawlInitial(progress: progress)
            step = EngineStep(
                live: LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: requests.markerPrefix),
                schedule: EngineSchedule(settle: options.settle, pollInterval: options.pollInterval, now: clock.now),
                clock: clock)
        } catch {
            crawlEnded(shared)
            return .failure(.root(error.description))
        }
        crawlEnded(shared)
        step.live.oneFileSystem = options.crawl.oneFileSystem
        step.live.copyUpDevices = services.mounts?.copyUpDevices ?? []
        step.live.verification = VerificationSweep(options.verification, now: clock.now)
        step.live.restatsLinkedInodesAtSync = backend.fanotifyWatches == nil
        let rootName = Array(options.root.split(separator: UInt8(ascii: "/")).last ?? [])
        if let watch = fileSystem.watchRootParent(rootName: rootName, rootStatus: services.rootStatus) {
            step.live.rootParent = (watch, rootName)
        }
        let total = step.live.tree.tally(of: step.live.tree.root)
        publisher.emit(
            .ready(
                directories: step.live.tree.directoryCount, files: step.live.tree.fileCount,
                allocated: total.allocated, seconds: clock.seconds(since: 0), backend: reporter.backendName,
                backendReason: reporter.backendReason))
        publisher.reportDegradation(of: step.live)
        var startEvents = policy.start(&step.live, root: root)
        if let config = policy.monitor?.config,
            let failure = startParticipants(root: root, config: config, cleaners: services.server.registeredCleaners)
        {
            return .failure(failure)
        }
        defer { for participant in options.participants { participant.stop() } }
        // Every leftover already there.
        startEvents += policy.evaluated(&step.live, changed: [])
        // Published once every participant has started, so the cleaners hear them.
        for event in startEvents { publisher.publish(event) }
        publisher.notifyObservers(.ready, step.live, monitor: policy.monitor)
        var actions = LoopActions(
            participants: options.participants, publisher: publisher, policy: policy, requests: requests,
            mounts: services.mounts,
            rootPath: RootPathCheck(
                path: options.root, watched: services.rootStatus, interval: options.pollInterval, now: clock.now))
        let exit = loop(&step, &actions)
        publisher.notifyObservers(.stopping, step.live, monitor: policy.monitor)
        return exit
    }

    /// The crawl's listings are freed by now; what they leave free in the heap goes back before
    /// the daemon says it is ready, not at the first quiet moment after an event. Roots served
    /// together do it once, when the last crawl underway ends.
    private func crawlEnded(_ shared: SharedRootServices?) {
        if shared?.endCrawl() ?? true { MemoryTuning.returnFreeMemory() }
    }

    /// Starts every participant in order, each with its own way back to this thread; the
    /// first that cannot start stops those before it, and its reason stops the engine.
    private func startParticipants(
        root: FileDescriptor, config: PolicyConfig, cleaners: RegisteredCleaners
    )
        -> EngineFailure?
    {
        for (index, participant) in options.participants.enumerated() {
            let mailbox = self.mailbox
            let start = ParticipantStart(
                post: { mailbox.post(.participant(index, $0)) }, root: root, config: config,
                registeredCleaners: cleaners, now: clock.now)
            guard let failure = participant.start(start) else { continue }
            for started in options.participants.prefix(index) { started.stop() }
            return failure
        }
        return nil
    }

    // MARK: The loop

    private func loop(_ step: inout KernelStep, _ actions: inout LoopActions) -> EngineExit {
        step.schedule.flushed(at: clock.now)
        step.schedule.polled(at: clock.now)
        while true {
            var wake = step.wakeDeadline(policyDeadline: actions.deadline)
            // Changes count from a flush on, and none comes before `earliestFlush`: those the
            // reader hands over until then wait for it (the engine wakes at it at the latest)
            // rather than waking the engine for each batch. Not while a sync waits for its marker.
            let earliestFlush = step.schedule.earliestFlush
            let changesMayWait = step.schedule.waitingSyncs == 0 && clock.now < earliestFlush
            if changesMayWait { wake = min(wake ?? earliestFlush, earliestFlush) }
            let deadline = wake.map(clock.instant(of:))
            for message in mailbox.take(until: deadline, changesMayWait: changesMayWait) {
                switch message {
                case .events(let changes):
                    // Read in place: a copy kept alive until `apply` below mutates the tree would
                    // make it copy the whole tree once per batch.
                    let batch = options.participants.reduce(changes) { $1.changes($0, in: step.live) }
                    if options.traces { Log.requested(ChangeTrace.text(batch, step.live, root: options.rootDisplay)) }
                    let overflowed = step.apply(batch)
                    if step.live.mountTableMayHaveChanged { MountFollower.follow(actions.mounts, in: &step.live) }
                    if overflowed { actions.publisher.emit(.overflow) }
                case .filesChanged(let files):
                    for file in files { step.live.fileChanged(device: file.device, inode: file.inode, now: clock.now) }
                case .request(let request, let reply):
                    actions.requests.answer(request, reply, &step)
                case .shutdown(let signal):
                    return .signal(signal)
                case .reload:
                    step.schedule.reloadRequested(at: clock.now)
                case .participant(let index, let message):
                    options.participants[index].received(message, actions.publisher.output)
                case .stop:
                    return .stopped
                case .readerFailed(let error):
                    return .failure(
                        .runtime("reading \(actions.publisher.reporter.backendName) events failed: \(error)"))
                case .mountsChanged:
                    MountFollower.follow(actions.mounts, in: &step.live)
                }
            }
            step.turn(&actions)
            var gone: String?
            let finding = step.live.rootIsGone ? .missing : actions.rootPath.check(now: clock.now)
            switch finding {
            case .missing:
                gone =
                    "the root \(options.rootDisplay) was deleted or moved away; nothing is left to watch. "
                    + "Recreate it and start 'quotawatch run' again."
            case .replaced:
                gone =
                    "the path \(options.rootDisplay) no longer leads to the directory being watched: a directory "
                    + "above it was renamed or replaced. Start 'quotawatch run' again to watch what is there now."
            case nil:
                break
            }
            if let message = gone {
                actions.publisher.emit(.rootGone(message: message))
                actions.requests.failWaiting(message)
                return .failure(.runtime(message))
            }
        }
    }

    /// What the engine adds to each turn of the step: its parts, each at its point.
    private struct LoopActions: EngineStepActions {
        let participants: [any EngineParticipant]
        let publisher: EnginePublisher
        let policy: EnginePolicy
        let requests: ControlRequestHandler
        let mounts: MountFollower?
        let rootPath: RootPathCheck

        /// The earliest moment the policy layer, the participants, the observers and the check
        /// of ROOT's path want a turn.
        var deadline: UInt64? {
            let wishes =
                [policy.nextDeadline, publisher.nextObserverTurn, rootPath.nextDeadline]
                + participants.map(\.nextDeadline)
            return wishes.compactMap { $0 }.min()
        }

        func completeSyncs(_ step: inout KernelStep) { requests.completeSyncs(&step) }
        func expireSyncs(_ markers: [[UInt8]], _ step: inout KernelStep) { requests.expireSyncs(markers, &step) }
        func resync(_ step: inout KernelStep) { requests.resync(&step) }
        func reload(_ step: inout KernelStep) { policy.reload(&step.live) }
        func polled(_ step: inout KernelStep) { publisher.reportDegradation(of: step.live) }
        func verified(_ corrections: [VerificationSweep.Correction], _ step: inout KernelStep) {
            publisher.reportCorrections(corrections, sweep: step.live.verification)
        }
        func endTurn(_ step: inout KernelStep, now: UInt64) {
            publisher.reportUnreadable(of: step.live)
            policy.endTurn(&step.live, now: now)
            for participant in participants where participant.nextDeadline.map({ $0 <= now }) ?? false {
                participant.turn(now: now)
            }
            publisher.observerTurn(step.live, monitor: policy.monitor, now: now)
        }
    }
}
