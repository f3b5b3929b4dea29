import QuotaWatchCore
import QuotaWatchPolicy

/// Something built outside the engine that takes part in it on the engine thread: started
/// once the first crawl is placed, it hears every policy event the engine publishes, gets the
/// messages its own threads post back on the engine thread, hears of every good reload, and is
/// stopped before ``LiveEngine/run(progress:)`` returns. The alert hooks are one
/// (``HookParticipant``), given in ``EngineOptions/participants``.
///
/// Every method runs on the engine thread and must return at once: the work goes to the
/// participant's own threads, whose results come back through `post`.
public protocol EngineParticipant: AnyObject, Sendable {
    /// Starts it. `post` hands a message to the engine thread, which gives it back to
    /// ``received(_:publish:)``. Returns why it cannot start, which stops the engine.
    func start(post: @escaping @Sendable (any Sendable) -> Void) -> EngineFailure?

    /// The engine clock's instant at which it next wants ``turn(now:)``; nil while it waits
    /// for nothing. Read once per loop turn: keep it cheap.
    var nextDeadline: UInt64? { get }

    /// Called at or after ``nextDeadline``, at the end of a turn.
    func turn(now: UInt64)

    /// Every policy event the engine publishes, in order.
    func published(_ event: PolicyEvent)

    /// A message it posted, back on the engine thread; `publish` publishes a policy event as
    /// the engine publishes its own (to every participant, the event stream and observers).
    func received(_ message: any Sendable, publish: (PolicyEvent) -> Void)

    /// A good SIGHUP reload put `config` in force.
    func reloaded(_ config: PolicyConfig)

    /// The engine stops: end what runs and join the participant's threads.
    func stop()
}

extension EngineParticipant {
    public var nextDeadline: UInt64? { nil }
    public func turn(now: UInt64) {}
    public func published(_ event: PolicyEvent) {}
    public func received(_ message: any Sendable, publish: (PolicyEvent) -> Void) {}
    public func reloaded(_ config: PolicyConfig) {}
}
