import QuotaWatchCore
import QuotaWatchSystem

/// A registered cleaner's connection as the control loop keeps it.
struct RegisteredSession {
    let registration: RegisteredCleaners.Registration
    /// Every event line; only `level`, its quota events and the runs it took part in go out.
    let subscription: ControlEventFeed.Subscription
    /// Status requests handed to the engine and not answered yet.
    var statusRequests = 0

    /// Status requests one cleaner may have waiting; one more is answered with an error.
    static let maximumStatusRequests = 4
    /// Bytes waiting to go past which event lines are dropped (contexts and answers never are).
    static let maximumBacklog = 1 << 20
}

/// The connections of registered cleaners (`register_cleaner`): they stay open, and carry
/// lines both ways. The loop never waits on one: a context line is queued like an event line,
/// and a reply line is handed to the waiting call (``RegisteredCleaners/answer(id:context:line:)``).
extension ControlConnectionTable {
    mutating func register(
        _ connection: inout ControlConnection, _ request: RegisterCleanerRequest, id: UInt64,
        now: ContinuousClock.Instant, loop: ControlLoop
    ) {
        let registered = registry.register(id: id, request) { [loop] line in loop.push(id: id, line: line) }
        let registration: RegisteredCleaners.Registration
        switch registered {
        case .success(let accepted): registration = accepted
        case .failure(let failure): return refuse(&connection, id: id, failure.description, now: now)
        }
        connection.phase = .registered(
            RegisteredSession(registration: registration, subscription: events.subscribe()))
        let greeting = RegisteredCleanerGreeting.line(registration, timeout: registry.timeout(of: registration))
        connection.append(Array(greeting.utf8) + [0x0A])
        connection.deadline = now + options.sendTimeout
        served -= 1
        stream(&connection, id: id, now: now)
    }

    mutating func serveRegistered(
        _ connection: inout ControlConnection, id: UInt64, session: RegisteredSession, found: PollEvents,
        now: ContinuousClock.Instant, loop: ControlLoop
    ) {
        if !found.isDisjoint(with: [.readable, .hungUp, .failed, .invalid]) {
            guard readRegistered(&connection, id: id, session: session, now: now, loop: loop) else { return }
        }
        sendQueued(&connection, id: id, now: now)
    }

    /// Sends what the socket takes. The send timeout runs from the moment lines wait, so that
    /// a cleaner that never reads is dropped (and unregistered), however few lines it was sent.
    mutating func sendQueued(_ connection: inout ControlConnection, id: UInt64, now: ContinuousClock.Instant) {
        if connection.hasOutput && connection.deadline == nil { connection.deadline = now + options.sendTimeout }
        stream(&connection, id: id, now: now)
    }

    /// A context line for connection `id`.
    mutating func push(id: UInt64, line: [UInt8], now: ContinuousClock.Instant) {
        guard var connection = connections[id], case .registered = connection.phase else { return }
        connection.append(line)
        sendQueued(&connection, id: id, now: now)
    }

    /// Reads what is waiting and handles each complete line. False when the connection closed.
    private mutating func readRegistered(
        _ connection: inout ControlConnection, id: UInt64, session: RegisteredSession, now: ContinuousClock.Instant,
        loop: ControlLoop
    ) -> Bool {
        let limit = ControlProtocol.maximumRequestBytes
        for _ in 0..<16 {
            let received: NonBlockingReceive
            do {
                received = try connection.descriptor.receiveAvailable(into: &scratch)
            } catch {
                connection.outcome = .clientGone(error)
                close(id, connection)
                return false
            }
            switch received {
            case .wouldBlock:
                return true
            case .endOfFile:
                // Closing the connection is how a cleaner unregisters.
                connection.outcome = .replied
                close(id, connection)
                return false
            case .received(let count):
                connection.input += scratch[..<count]
            }
            // Lines stop being read once the client's answers overflow: it is dropped next.
            while !connection.overflowed, let newline = connection.input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(connection.input[..<newline])
                connection.input.removeFirst(newline + 1)
                if line.count > limit { return tooLong(&connection, id: id, session: session, now: now) }
                // The session as this line finds it: an earlier line may have counted a request.
                guard case .registered(let current) = connection.phase else { return true }
                handleLine(line, &connection, id: id, session: current, loop: loop)
            }
            if connection.overflowed { return true }
            if connection.input.count > limit { return tooLong(&connection, id: id, session: session, now: now) }
        }
        return true
    }

    /// A line past the limit cannot be framed again: the waiting call is told, the client too, and
    /// the connection closes (which unregisters it).
    private mutating func tooLong(
        _ connection: inout ControlConnection, id: UInt64, session: RegisteredSession, now: ContinuousClock.Instant
    ) -> Bool {
        let limit = ControlProtocol.maximumRequestBytes
        registry.fail(id: id, "its reply is longer than \(limit) bytes; it is unregistered")
        let message =
            "a line longer than \(limit) bytes came from '\(session.registration.name)'; the cleaner is unregistered. "
            + "Reply with the paths removed, each once, and register again"
        connection.reply(
            ControlLoop.errorLine(message), outcome: .answeredWithError(message), deadline: now + options.sendTimeout)
        // No longer registered: its stream and registration go now, and it is counted as served
        // until the error line has gone.
        events.unsubscribe(session.subscription)
        registry.unregister(id: id)
        served += 1
        send(&connection, id: id, now: now)
        return false
    }

    /// A request (it has `command`) or a reply to the context waiting (anything else).
    private mutating func handleLine(
        _ line: [UInt8], _ connection: inout ControlConnection, id: UInt64, session: RegisteredSession,
        loop: ControlLoop
    ) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
        let head = ContractLineHead.read(line)
        if head?.isRequest == true {
            switch ControlProtocol.decodeRequest(line) {
            case .success(let request) where request.command == .status(.quotas):
                guard session.statusRequests < RegisteredSession.maximumStatusRequests else {
                    connection.append(
                        ControlLoop.errorLine(
                            "\(RegisteredSession.maximumStatusRequests) status requests of "
                                + "'\(session.registration.name)' are waiting already; read their answers first"))
                    return
                }
                var counted = session
                counted.statusRequests += 1
                connection.phase = .registered(counted)
                let paths = session.registration.paths
                let slot = loop.replySlot(for: id) { document in
                    guard var snapshot = document as? QuotaSnapshot else { return document.replyJSON() }
                    snapshot.rows = snapshot.rows.filter { RegisterCleanerRequest.concerns(paths, $0.path) }
                    return snapshot.replyJSON()
                }
                loop.handOver(request, slot: slot)
            case .success(let request):
                connection.append(
                    ControlLoop.errorLine(
                        "a registered cleaner's connection answers only {\"command\":\"status\",\"select\":\"quotas\"} "
                            + "(and its replies), not '\(request.command.name)'; open another connection for it"))
            case .failure(let failure):
                connection.append(ControlLoop.errorLine(failure.description))
            }
            return
        }
        let context = head?.context
        guard registry.answer(id: id, context: context, line: line) else {
            let which = context.map { "context \($0)" } ?? "a context"
            connection.append(
                ControlLoop.errorLine(
                    "a reply came from '\(session.registration.name)', but \(which) is not waiting for one "
                        + "(its timeout passed, or it was never sent); it was ignored"))
            return
        }
    }

    /// Moves this cleaner's events (the level, its quota directories, the runs it was called
    /// in) into its output.
    mutating func feedRegistered(
        _ connection: ControlConnection, id: UInt64, session: RegisteredSession, now: ContinuousClock.Instant
    ) {
        guard let lines = session.subscription.take() else {
            var closing = connection
            closing.outcome = .replied
            close(id, closing)
            return
        }
        let kept = lines.filter { RegisteredEventFilter.keeps($0, for: session.registration) }
        // A cleaner that does not read loses event lines, never its contexts; past the send
        // timeout with nothing taken it is dropped (``ControlConnectionTable/expire(now:)``).
        guard !kept.isEmpty, connection.queuedBytes < RegisteredSession.maximumBacklog else {
            return
        }
        var feeding = connection
        feeding.append(ControlConnection.eventLines(kept))
        sendQueued(&feeding, id: id, now: now)
    }
}

/// Which event lines a registered cleaner hears.
enum RegisteredEventFilter {
    static func keeps(_ line: String, for registration: RegisteredCleaners.Registration) -> Bool {
        // Most lines are none of these: a look at the text first spares parsing them.
        guard
            line.contains(#""event":"level""#) || line.contains(#""event":"quota_"#)
                || line.contains(#""event":"cleanup""#) || line.contains(#""event":"dropped""#)
        else { return false }
        let bytes = Array(line.utf8)
        if ContractLineHead.read(bytes)?.event == CleanupSummaryDocument.kind {
            let summary = try? ContractJSON.decode(CleanupSummaryDocument.self, from: bytes)
            return summary?.cleaners.contains { $0.name == registration.name } == true
        }
        switch (try? ContractJSON.decode(ContractEvent.self, from: bytes))?.payload {
        case .level, .dropped:
            return true
        case .quota(_, let text, _, _, _, _, _, _):
            guard let path = EscapedName.bytes(text) else { return false }
            return RegisterCleanerRequest.concerns(registration.paths, path)
        default:
            return false
        }
    }
}

/// A registered cleaner's first line.
enum RegisteredCleanerGreeting {
    /// `{"event":"registered","name":…,"paths":[…],"timeout_ms":N,"version":N}`: the first line
    /// a registered cleaner gets.
    static func line(_ registration: RegisteredCleaners.Registration, timeout: Duration) -> String {
        ContractJSON.encodedString(
            ContractEvent(
                .registered(
                    name: registration.name, paths: registration.paths.map { EscapedName.string($0) },
                    timeoutMilliseconds: timeout.clampedMilliseconds, version: ContractEvent.version),
                root: nil))
    }
}
