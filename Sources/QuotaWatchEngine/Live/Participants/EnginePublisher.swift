import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Where everything the engine says leaves it: each event goes to `--events`, the control
/// socket's subscribers, the observers and (a policy event) the participants; the observers
/// also get their look at the tree (``EngineView``) at the moments of the engine's life and
/// when their turn is due. Owned by the engine thread.
final class EnginePublisher {
    let rootDisplay: String
    /// What the engine reports of itself beside the tree.
    let reporter: EngineReporter
    private let clock: MonotonicEngineClock
    /// `--events`; nil without it.
    private let events: LineWriter?
    /// The control socket's event stream (`{"command":"events"}`).
    private let feed: ControlEventFeed?
    private let observers: [any EngineObserver]
    private let participants: [any EngineParticipant]
    /// What was said of the subtrees that cannot be watched.
    private var degradation: DegradationReport

    init(
        options: EngineOptions, reporter: EngineReporter, clock: MonotonicEngineClock, events: LineWriter?,
        feed: ControlEventFeed?
    ) {
        rootDisplay = options.rootDisplay
        self.reporter = reporter
        self.clock = clock
        self.events = events
        self.feed = feed
        observers = options.observers
        participants = options.participants
        degradation = DegradationReport(rootDisplay: options.rootDisplay, pollInterval: options.pollInterval)
    }

    func emit(_ event: EngineEvent) { deliver(.engine(event)) }

    /// Where every policy event leaves the engine: the event stream, observers and the
    /// participants (the hooks, the cleanup triggers).
    func publish(_ event: PolicyEvent) {
        deliver(.policy(event))
        for participant in participants { participant.published(event) }
    }

    /// What a participant's message may publish or emit.
    var output: ParticipantOutput {
        ParticipantOutput(
            publish: { [unowned self] in publish($0) }, emit: { [unowned self] in emit($0) }, now: clock.now)
    }

    /// To `--events`, the socket's subscribers and the observers, in that order. The line is
    /// encoded once, and only when a reader of lines is there (the control socket's feed is
    /// one always: it remembers the newest lines for a view that attaches later); it carries
    /// the root.
    private func deliver(_ event: ObservedEvent) {
        if events != nil || feed != nil {
            let line = event.jsonLine(root: rootDisplay)
            events?.write(line)
            feed?.publish(line, remembering: event.rememberedLine(line, root: rootDisplay, time: WallTime.now))
        }
        for observer in observers { observer.engineEmitted(event) }
    }

    /// Subtrees that cannot be watched: said once per change of that set. Directories that
    /// cannot be read: warned of when one is found, at start as later.
    func reportDegradation(of live: LiveTree<KernelFileSystem>) {
        if let event = degradation.report(of: live) { emit(event) }
        reportUnreadable(of: live)
    }

    /// Warns (stderr, the log) of directories found unreadable since the last warning.
    func reportUnreadable(of live: LiveTree<KernelFileSystem>) {
        guard let warning = degradation.unreadableWarning(of: live) else { return }
        Log.warning(warning)
    }

    /// Logs what a slice of the verification sweep corrected (``VerificationLog``).
    func reportCorrections(_ corrections: [VerificationSweep.Correction], sweep: VerificationSweep) {
        let found = (sweep.current ?? sweep.last)?.corrections ?? UInt64(corrections.count)
        let earlier = found - min(found, UInt64(corrections.count))
        for line in VerificationLog.lines(for: corrections, earlier: earlier) { Log.warning(line) }
    }

    // MARK: Observers

    /// The earliest moment an observer wants its turn.
    var nextObserverTurn: UInt64? { observers.compactMap(\.nextTurn).min() }

    func notifyObservers(_ change: EngineLifecycle, _ live: LiveTree<KernelFileSystem>, monitor: PolicyMonitor?) {
        guard !observers.isEmpty else { return }
        let view = view(of: live, monitor: monitor)
        for observer in observers { observer.engine(change, view) }
    }

    /// Gives each observer whose turn is due a look at the tree.
    func observerTurn(_ live: LiveTree<KernelFileSystem>, monitor: PolicyMonitor?, now: UInt64) {
        let due = observers.filter { observer in observer.nextTurn.map { $0 <= now } ?? false }
        guard !due.isEmpty else { return }
        let view = view(of: live, monitor: monitor)
        for observer in due { observer.engineTurn(view) }
    }

    private func view(of live: LiveTree<KernelFileSystem>, monitor: PolicyMonitor?) -> EngineView {
        EngineView(
            now: clock.now, rootDisplay: rootDisplay, tree: live.tree, counters: reporter.report(of: live),
            isResyncing: live.needsResync, monitor: monitor)
    }
}
