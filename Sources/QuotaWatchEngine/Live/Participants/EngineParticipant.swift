import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Something built outside the engine that takes part in it on the engine thread: started
/// once the first crawl is placed, it may take the changes it wants before the tree sees
/// them, read and change the tree and the policy layer at the end of every turn, answer the
/// control requests it serves, hear every policy event the engine publishes, get the messages
/// its own threads post back, hear of every good reload, and is stopped before
/// ``LiveEngine/run(progress:)`` returns. The alert hooks (``HookParticipant``) and the
/// cleaners (``CleanupParticipant``: triggers, runs and `quotawatch clean`) and the leftover
/// rules (``LeftoverParticipant``) are given in ``EngineOptions/participants``, in the order they hear events.
///
/// Every method runs on the engine thread and must return at once: the work goes to the
/// participant's own threads, whose results come back through ``ParticipantStart/post``.
///
/// **The order of one engine turn**, as ncdu's `dir_output` documents its callbacks. Given
/// participants `[hooks, leftovers, cleanup]` and a turn in which a write breached `Caches/a`:
///
/// 1. Once, at start: the policy layer places the first crawl; ``start(_:)`` for each in
///    order (a failure stops those started and the engine); ``evaluated(_:_:changed:now:)``
///    with `changed: []` (the leftover pass looks at every file placed); every event found is
///    published (step 5).
/// 2. For each mailbox message of the turn, in arrival order: a batch of kernel changes goes
///    through ``changes(_:in:)`` of each in order (the cleanup participant keeps the opens),
///    then to the tree; a control request the engine does not answer goes to
///    ``answer(_:_:)`` of each until one takes it; a posted message to ``received(_:_:)`` of
///    the one that posted it (a cleanup run's end: its `cleanup` event is emitted there).
/// 3. The step's own work (flushes, timers, syncs, a resync, a reload: ``reloaded(_:)`` of
///    each, in order, after the config was read and before it is placed).
/// 4. The policy pass: the directories removed this turn go to ``forgetting(_:_:)`` of each
///    before their ids can be reused; the monitor evaluates the changed tallies
///    (`quota_breach Caches/a`); ``evaluated(_:_:changed:now:)`` of each, with the files
///    re-stat'ed this turn (the leftover pass reports `leftover` here).
/// 5. Each event of step 4 is published: ``published(_:)`` of each, in order, then the event
///    stream and the observers (the cleanup participant notes the breach as a trigger).
/// 6. ``endTurn(_:_:now:)`` of each, in order (the cleanup participant plans the noted
///    triggers from the tree as it now stands, submits one run, holds `Caches/a`); one that
///    returns true makes the policy pass (4, 5) run again at once.
/// 7. ``turn(now:)`` of each whose ``nextDeadline`` has come; then the loop sleeps until the
///    earliest ``nextDeadline``, the policy's own, or the next message.
///
/// What a participant may keep: values (paths, ids it re-checks against the tree each turn,
/// since directory ids are reused after ``forgetting(_:_:)``), never a reference into the tree.
package protocol EngineParticipant: AnyObject, Sendable {
    /// Starts it, after the policy layer has placed the first crawl. Returns why it cannot
    /// start, which stops the engine.
    func start(_ start: ParticipantStart) -> EngineFailure?

    /// The engine clock's instant at which it next wants ``turn(now:)``; nil while it waits
    /// for nothing. Read once per loop turn: keep it cheap.
    var nextDeadline: UInt64? { get }

    /// Called at or after ``nextDeadline``, at the end of a turn.
    func turn(now: UInt64)

    /// A batch of changes before the tree applies them: what it returns goes on to the tree
    /// (the last-open log keeps the opens, which change no size).
    func changes(_ batch: [FileSystemChange], in live: LiveTree<KernelFileSystem>) -> [FileSystemChange]

    /// At the end of every turn, after the policy pass: reads and changes the tree and the
    /// policy layer. Returns true when the policy layer must be evaluated again now.
    func endTurn(_ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor?, now: UInt64) -> Bool

    /// The policy layer is about to forget the directories `removed` (their ids may be reused
    /// at once): the events of what it kept there.
    func forgetting(_ removed: [DirectoryID], _ monitor: inout PolicyMonitor) -> [PolicyEvent]

    /// The policy layer has evaluated the tree (each turn, at the start, after a reload or a
    /// resync); `changed` are the files re-stat'ed since the last time. Returns the events it
    /// finds, which the engine publishes with the policy layer's own.
    func evaluated(
        _ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor,
        changed: [StructureChanges.FileName], now: UInt64
    ) -> [PolicyEvent]

    /// A control request the engine does not answer itself; false when it is not this one's.
    func answer(_ request: ParticipantRequest, _ live: inout LiveTree<KernelFileSystem>) -> Bool

    /// Every policy event the engine publishes, in order.
    func published(_ event: PolicyEvent)

    /// A message it posted, back on the engine thread; `output` publishes a policy event as
    /// the engine publishes its own (to every participant, the event stream and observers), or
    /// emits an engine event.
    func received(_ message: any Sendable, _ output: ParticipantOutput)

    /// A good SIGHUP reload put `config` in force.
    func reloaded(_ config: PolicyConfig)

    /// After a good reload, once its own events are published: the states that stand now
    /// (quota directories past a line, the disk level when not normal, leftovers still there)
    /// as the events that announced them, less those the reload itself published. For what the
    /// reload added (a hook) to hear once what it was not there to hear.
    func standing(_ events: [PolicyEvent])

    /// The engine stops: end what runs and join the participant's threads.
    func stop()
}

/// What a participant is given when it starts.
package struct ParticipantStart {
    /// Hands a message to the engine thread, which gives it back to
    /// ``EngineParticipant/received(_:_:)``.
    package let post: @Sendable (any Sendable) -> Void
    /// ROOT's descriptor, open for the whole run.
    package let root: FileDescriptor
    /// The config the policy layer placed.
    package let config: PolicyConfig
    /// Programs registered as cleaners on the control socket.
    package let registeredCleaners: RegisteredCleaners
    /// The engine clock's reading.
    package let now: UInt64
}

/// Where a participant's events leave the engine.
package struct ParticipantOutput {
    package let publish: (PolicyEvent) -> Void
    package let emit: (EngineEvent) -> Void
    /// The engine clock's reading.
    package let now: UInt64
}

/// A control request handed to the participants, with what answering it may read.
package struct ParticipantRequest {
    package let command: ControlCommand
    package let reply: ControlReply
    /// The policy layer, as it stands.
    package let monitor: PolicyMonitor?
    /// The engine's counters, for a reply that shows them.
    package let counters: EngineReport
}

extension EngineParticipant {
    package var nextDeadline: UInt64? { nil }
    package func turn(now: UInt64) {}
    package func changes(_ batch: [FileSystemChange], in live: LiveTree<KernelFileSystem>) -> [FileSystemChange] {
        batch
    }
    package func endTurn(
        _ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor?, now: UInt64
    )
        -> Bool
    { false }
    package func forgetting(_ removed: [DirectoryID], _ monitor: inout PolicyMonitor) -> [PolicyEvent] { [] }
    package func evaluated(
        _ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor,
        changed: [StructureChanges.FileName], now: UInt64
    ) -> [PolicyEvent] { [] }
    package func answer(_ request: ParticipantRequest, _ live: inout LiveTree<KernelFileSystem>) -> Bool { false }
    package func published(_ event: PolicyEvent) {}
    package func received(_ message: any Sendable, _ output: ParticipantOutput) {}
    package func reloaded(_ config: PolicyConfig) {}
    package func standing(_ events: [PolicyEvent]) {}
}
