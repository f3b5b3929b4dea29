import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// The cleaners running programs registered over the control socket
/// (`{"command":"register_cleaner",…}`), in registration order, shared by the control loop
/// (which owns their connections) and the cleanup runner (which calls them).
///
/// A call hands the connection one context line and blocks the calling thread (the cleanup
/// runner's call of that cleaner) until the control loop passes back the reply line, the
/// connection drops, the call's deadline passes or it is cancelled (the runner's timeout). The
/// control loop only sets the answer and wakes the caller, so neither the engine nor the control
/// loop ever waits on a registered cleaner.
package final class RegisteredCleaners: Sendable {
    /// The wait for a reply when neither the registration nor the config names one.
    package static let defaultTimeout: Duration = .seconds(30)
    /// Registrations at once; one more is refused with an error naming the bound.
    package static let defaultCapacity = 64

    /// One registered cleaner as the runner and the planner see it.
    package struct Registration: Sendable, Hashable {
        /// The control connection's id: unique for the daemon's life.
        package let id: UInt64
        package let name: String
        package let paths: [[UInt8]]
        /// What the registration asked for; nil takes ``RegisteredCleaners/timeout``.
        let requestedTimeout: Duration?
    }

    /// What a call got back.
    package enum Answer: Sendable, Equatable {
        case reply([UInt8])
        case failed(String)
    }

    private struct Entry {
        var registration: Registration
        var send: @Sendable ([UInt8]) -> Void
        var waiting: (context: UInt64, reply: ReplySlot)?
    }

    /// Where one call's answer is left for the thread waiting on it.
    private typealias ReplySlot = BlockingState<Answer?>

    private struct State {
        var entries: [Entry] = []
        /// The configured cleaners' names: a registration may not take one.
        var reserved: Set<String> = []
        var timeout: Duration = RegisteredCleaners.defaultTimeout
        var contexts: UInt64 = 0
    }

    package let capacity: Int
    private let state = Mutex(State())

    package init(capacity: Int = RegisteredCleaners.defaultCapacity) { self.capacity = max(capacity, 0) }

    /// The config's part: the default wait for a reply (`{kind: registered, timeout: …}`) and
    /// the names of the configured cleaners.
    package func configure(timeout: Duration?, reservedNames: Set<String>) {
        state.withLock { state in
            if let timeout { state.timeout = timeout }
            state.reserved = reservedNames
        }
    }

    /// The config's `cleaners:`: the `registered` entry's timeout, and every cleaner's name.
    package func configure(_ settings: CleanupSettings) {
        let timeout = settings.cleaners.lazy.compactMap { spec -> Duration? in
            if case .registered(let timeout) = spec { timeout } else { nil }
        }.first
        configure(timeout: timeout, reservedNames: Set(settings.cleaners.map(\.name)))
    }

    /// The wait for a reply of `registration`.
    package func timeout(of registration: Registration) -> Duration {
        registration.requestedTimeout ?? state.withLock { $0.timeout }
    }

    /// Every registration now, in registration order.
    package var current: [Registration] { state.withLock { $0.entries.map(\.registration) } }

    /// Adds connection `id` as a cleaner; `send` hands a line to its connection. Returns the
    /// registration, or the message for a name already taken or a full table.
    func register(
        id: UInt64, _ request: RegisterCleanerRequest, send: @escaping @Sendable ([UInt8]) -> Void
    ) -> Result<Registration, ControlProtocol.Failure> {
        state.withLock { state in
            if state.reserved.contains(request.name) {
                return .failure(
                    ControlProtocol.Failure(
                        "'\(request.name)' is the name of a cleaner in the config; register under another name"))
            }
            if state.entries.contains(where: { $0.registration.name == request.name }) {
                return .failure(
                    ControlProtocol.Failure(
                        "a cleaner named '\(request.name)' is already registered; choose another name, or close "
                            + "that connection first (a closed connection unregisters its cleaner)"))
            }
            guard state.entries.count < capacity else {
                return .failure(
                    ControlProtocol.Failure(
                        "the daemon already has \(capacity) registered cleaners, its limit; close one "
                            + "(closing its connection unregisters it) or register fewer"))
            }
            let registration = Registration(
                id: id, name: request.name, paths: request.paths, requestedTimeout: request.timeout)
            state.entries.append(Entry(registration: registration, send: send))
            return .success(registration)
        }
    }

    /// Connection `id` closed: its cleaner is gone, and a call waiting for it ends now.
    func unregister(id: UInt64) {
        let waiting = state.withLock { state -> (String, ReplySlot)? in
            guard let index = state.entries.firstIndex(where: { $0.registration.id == id }) else { return nil }
            let entry = state.entries.remove(at: index)
            return entry.waiting.map { (entry.registration.name, $0.reply) }
        }
        if let (name, reply) = waiting {
            Self.settle(reply, .failed("the connection of '\(name)' closed before it replied; it is unregistered"))
        }
    }

    /// Sends the line `makeLine` builds for a fresh context number and blocks until its reply,
    /// a failure, `deadline`, or `cancellation` (the runner's timeout, or the runner stopping),
    /// which ends the wait at once.
    package func exchange(
        id: UInt64, deadline: ContinuousClock.Instant, cancellation: Cancellation, makeLine: (UInt64) -> [UInt8]
    ) -> Answer {
        let reply = ReplySlot(nil)
        typealias Outcome = (context: UInt64, send: (@Sendable ([UInt8]) -> Void)?, failed: String?)
        let outcome = state.withLock { state -> Outcome in
            state.contexts += 1
            let context = state.contexts
            guard let index = state.entries.firstIndex(where: { $0.registration.id == id }) else {
                return (context, nil, "it is no longer registered (its connection closed)")
            }
            guard state.entries[index].waiting == nil else {
                return (context, nil, "it is still answering another context")
            }
            if cancellation.isCancelled { return (context, nil, "the call was cancelled") }
            state.entries[index].waiting = (context, reply)
            return (context, state.entries[index].send, nil)
        }
        if let failed = outcome.failed { return .failed(failed) }
        cancellation.onCancel { self.resolve(id: id, context: outcome.context, .failed("cancelled")) }
        outcome.send?(makeLine(outcome.context))
        if let answer = reply.wait(until: deadline, { $0 }) { return answer }
        // The deadline passed: a reply arriving now is late, and no call waits for it.
        resolve(id: id, context: outcome.context, .failed("no reply by the deadline"))
        return reply.withLock { $0 } ?? .failed("no reply by the deadline")
    }

    /// A reply line from connection `id`, naming the context it answers or not. False when no
    /// context of this connection waits for it (a late or unasked reply).
    func answer(id: UInt64, context: UInt64?, line: [UInt8]) -> Bool {
        let reply = state.withLock { state -> ReplySlot? in
            guard let index = state.entries.firstIndex(where: { $0.registration.id == id }),
                let waiting = state.entries[index].waiting, context == nil || context == waiting.context
            else { return nil }
            state.entries[index].waiting = nil
            return waiting.reply
        }
        if let reply { Self.settle(reply, .reply(line)) }
        return reply != nil
    }

    /// Whether a context of connection `id` waits for its reply.
    func isWaiting(id: UInt64) -> Bool {
        state.withLock { state in state.entries.contains { $0.registration.id == id && $0.waiting != nil } }
    }

    /// Ends the wait of connection `id` with `message` (its reply was too long to read).
    func fail(id: UInt64, _ message: String) {
        let reply = state.withLock { state -> ReplySlot? in
            guard let index = state.entries.firstIndex(where: { $0.registration.id == id }) else { return nil }
            defer { state.entries[index].waiting = nil }
            return state.entries[index].waiting?.reply
        }
        if let reply { Self.settle(reply, .failed(message)) }
    }

    private func resolve(id: UInt64, context: UInt64, _ answer: Answer) {
        let reply = state.withLock { state -> ReplySlot? in
            guard let index = state.entries.firstIndex(where: { $0.registration.id == id }),
                let waiting = state.entries[index].waiting, waiting.context == context
            else { return nil }
            state.entries[index].waiting = nil
            return waiting.reply
        }
        if let reply { Self.settle(reply, answer) }
    }

    /// The first answer a call gets stands; it wakes the thread waiting for it.
    private static func settle(_ reply: ReplySlot, _ answer: Answer) {
        reply.withLockWakingWaiters { current in
            if current == nil { current = answer }
        }
    }
}
