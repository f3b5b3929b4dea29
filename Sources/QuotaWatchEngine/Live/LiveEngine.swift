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
/// Sendable only so that another thread can call ``stop()``, which touches nothing but the
/// mailbox; everything else belongs to the thread inside ``run(progress:)``.
public final class LiveEngine: @unchecked Sendable {
    let options: EngineOptions
    let mailbox = Mailbox()
    let clock = MonotonicEngineClock()
    var events: LineWriter?
    /// `status` replies and the syncs waiting for their marker.
    var replies = StatusReplies()
    /// What was said of the subtrees that cannot be watched.
    var degradation: DegradationReport
    var requestsAnswered: UInt64 = 0
    /// The backend in use and why, for `ready`, `status` and the log.
    var backendName = "inotify"
    var backendReason = ""
    /// The control socket's event stream (`{"command":"events"}`), fed by emit and publish.
    var eventFeed: ControlEventFeed?
    /// Programs registered as cleaners on the control socket (``RegisteredCleaners``).
    var registeredCleaners: RegisteredCleaners?
    /// Quotas and disk levels; set once the first crawl is done.
    var monitor: PolicyMonitor?
    /// Mounts and unmounts below ROOT; nil when the mount table cannot be read.
    var mounts: MountFollower?

    public init(options: EngineOptions) {
        self.options = options
        degradation = DegradationReport(rootDisplay: options.rootDisplay, pollInterval: options.pollInterval)
    }

    /// Asks ``run(progress:)``, running on another thread, to return ``EngineExit/stopped`` as
    /// it returns after a signal: everything it started stopped and joined.
    public func stop() { mailbox.post(.stop) }

    /// Runs until a signal, ``stop()`` or a fatal condition. `progress` sees the first crawl.
    public func run(progress: ((CrawlProgress) -> Void)?) -> EngineExit {
        let services: EngineServices
        switch EngineServices.start(options, mailbox: mailbox) {
        case .success(let started): services = started
        case .failure(let failure): return .failure(failure)
        }
        let (root, backend) = (services.root, services.backend)
        (eventFeed, registeredCleaners) = (services.server.events, services.server.registeredCleaners)
        (backendName, backendReason) = (services.backendName, services.backendReason)
        (events, mounts) = (services.events, services.mounts)
        defer {
            services.stop()
            (events, mounts) = (nil, nil)
        }
        let fileSystem = KernelFileSystem(root: root, backend: backend, options: options.crawl)
        // The crawl's tree and report live only inside this block: a copy of the tree held for
        // the rest of the run would make the first change copy every array of the live one, and
        // the report of a freshly filled directory holds a name for every file in it.
        var step: KernelStep
        do {
            let (tree, report) = try fileSystem.crawlInitial(progress: progress)
            step = EngineStep(
                live: LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: replies.markerPrefix),
                schedule: EngineSchedule(settle: options.settle, pollInterval: options.pollInterval, now: clock.now),
                clock: clock)
        } catch {
            return .failure(.root(error.description))
        }
        step.live.oneFileSystem = options.crawl.oneFileSystem
        step.live.restatsLinkedInodesAtSync = !(backend is FanotifyBackend)
        // The crawl's listings are freed by now; what they leave free in the heap goes back
        // before the daemon says it is ready, not at the first quiet moment after an event.
        MemoryTuning.returnFreeMemory()
        let rootName = Array(options.root.split(separator: UInt8(ascii: "/")).last ?? [])
        if let watch = fileSystem.watchRootParent(rootName: rootName, rootStatus: services.rootStatus) {
            step.live.rootParent = (watch, rootName)
        }
        let total = step.live.tree.tally(of: step.live.tree.root)
        emit(
            .ready(
                directories: step.live.tree.directoryCount, files: step.live.tree.fileCount,
                allocated: total.allocated, seconds: seconds(since: 0), backend: backendName,
                backendReason: backendReason))
        reportDegradation(of: step.live)
        var startEvents = startPolicy(&step.live, root: root)
        if let failure = startParticipants(root: root) { return .failure(failure) }
        defer { for participant in options.participants { participant.stop() } }
        // Every leftover already there.
        startEvents += evaluated(&step.live, changed: [])
        // Published once every participant has started, so the cleaners hear them.
        for event in startEvents { publish(event) }
        notifyObservers(.ready, step.live)
        let exit = loop(&step)
        notifyObservers(.stopping, step.live)
        return exit
    }

    // MARK: The loop

    private func loop(_ step: inout KernelStep) -> EngineExit {
        step.schedule.flushed(at: clock.now)
        step.schedule.polled(at: clock.now)
        var actions = LoopActions(engine: self)
        while true {
            let deadline = step.wakeDeadline(policyDeadline: policyDeadline).map(clock.instant(of:))
            for message in mailbox.take(until: deadline) {
                switch message {
                case .events(let changes):
                    // Read in place: a copy kept alive until `apply` below mutates the tree would
                    // make it copy the whole tree once per batch.
                    let batch = options.participants.reduce(changes) { $1.changes($0, in: step.live) }
                    if options.traces { Log.requested(ChangeTrace.text(batch, step.live, root: options.rootDisplay)) }
                    let overflowed = step.apply(batch)
                    if step.live.mountTableMayHaveChanged { followMounts(&step.live) }
                    if overflowed { emit(.overflow) }
                case .filesChanged(let files):
                    for file in files { step.live.fileChanged(device: file.device, inode: file.inode, now: clock.now) }
                case .request(let request, let reply):
                    answer(request, reply, &step)
                case .shutdown(let signal):
                    return .signal(signal)
                case .reload:
                    step.schedule.reloadRequested(at: clock.now)
                case .participant(let index, let message):
                    options.participants[index].received(message, output)
                case .stop:
                    return .stopped
                case .readerFailed(let error):
                    return .failure(.runtime("reading \(backendName) events failed: \(error)"))
                case .mountsChanged:
                    followMounts(&step.live)
                }
            }
            step.turn(&actions)
            if step.live.rootIsGone {
                let message =
                    "the root \(options.rootDisplay) was deleted or moved away; nothing is left to watch. "
                    + "Recreate it and start 'quotawatch run' again."
                emit(.rootGone(message: message))
                for pending in replies.takeAll().values { pending.reply.fail(message) }
                return .failure(.runtime(message))
            }
        }
    }

    /// The earliest moment the policy layer, the participants and the observers want a turn.
    private var policyDeadline: UInt64? {
        ([monitor?.nextDeadline] + options.observers.map(\.nextTurn)
            + options.participants.map(\.nextDeadline)).compactMap { $0 }.min()
    }

    /// What the engine adds to each turn of the step.
    private struct LoopActions: EngineStepActions {
        let engine: LiveEngine

        func completeSyncs(_ step: inout KernelStep) { engine.completeSyncs(&step) }
        func expireSyncs(_ markers: [[UInt8]], _ step: inout KernelStep) { engine.expireSyncs(markers, &step) }
        func resync(_ step: inout KernelStep) { engine.resync(&step) }
        func reload(_ step: inout KernelStep) { engine.reloadPolicy(&step.live) }
        func polled(_ step: inout KernelStep) { engine.reportDegradation(of: step.live) }
        func endTurn(_ step: inout KernelStep, now: UInt64) {
            engine.policyTurn(&step.live)
            for participant in engine.options.participants {
                // Evaluated again at once when it asks: the loop may sleep until the next change.
                if participant.endTurn(&step.live, &engine.monitor, now: now) { engine.policyTurn(&step.live) }
            }
            for participant in engine.options.participants where participant.nextDeadline.map({ $0 <= now }) ?? false {
                participant.turn(now: now)
            }
            engine.observerTurn(step.live, now: now)
        }
    }

    // MARK: Plumbing

    func emit(_ event: EngineEvent) { deliver(.engine(event)) }

    /// Where every policy event leaves the engine: the event stream, observers and the
    /// participants (the hooks, the cleanup triggers).
    func publish(_ event: PolicyEvent) {
        deliver(.policy(event))
        for participant in options.participants { participant.published(event) }
    }

    /// What a participant's message may publish or emit.
    private var output: ParticipantOutput {
        ParticipantOutput(
            publish: { [unowned self] in publish($0) }, emit: { [unowned self] in emit($0) }, now: clock.now)
    }

    /// Starts every participant in order, each with its own way back to this thread; the
    /// first that cannot start stops those before it, and its reason stops the engine.
    private func startParticipants(root: FileDescriptor) -> EngineFailure? {
        guard let config = monitor?.config, let registeredCleaners else { return nil }
        for (index, participant) in options.participants.enumerated() {
            let mailbox = self.mailbox
            let start = ParticipantStart(
                post: { mailbox.post(.participant(index, $0)) }, root: root, config: config,
                registeredCleaners: registeredCleaners, now: clock.now)
            guard let failure = participant.start(start) else { continue }
            for started in options.participants.prefix(index) { started.stop() }
            return failure
        }
        return nil
    }

    /// To `--events`, the socket's subscribers and the observers, in that order. The line is
    /// encoded once, and only when a reader of lines is there; it carries the root.
    private func deliver(_ event: ObservedEvent) {
        let feed = eventFeed.flatMap { $0.hasSubscribers ? $0 : nil }
        if events != nil || feed != nil {
            let line = event.jsonLine(root: options.rootDisplay)
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
    func observerTurn(_ live: LiveTree<KernelFileSystem>, now: UInt64) {
        let due = options.observers.filter { observer in observer.nextTurn.map { $0 <= now } ?? false }
        guard !due.isEmpty else { return }
        let view = view(of: live)
        for observer in due { observer.engineTurn(view) }
    }

    /// Subtrees that cannot be watched: said once per change of that set.
    func reportDegradation(of live: LiveTree<KernelFileSystem>) {
        if let event = degradation.report(of: live) { emit(event) }
    }

    func seconds(since start: UInt64) -> Double {
        Double(clock.now - min(start, clock.now)) / 1e9
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
