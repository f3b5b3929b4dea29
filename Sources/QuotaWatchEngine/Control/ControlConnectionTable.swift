import QuotaWatchCore
import QuotaWatchSystem

/// Every open control connection, owned by ``ControlLoop``'s thread: what each is doing, the
/// bounds on how many and for how long, and what happens when one is readable or writable.
struct ControlConnectionTable {
    let options: ControlServer.Options
    let events: ControlEventFeed
    let registry: RegisteredCleaners
    var connections: [UInt64: ControlConnection] = [:]
    private var nextID: UInt64 = 0
    /// Connections counted against ``ControlServer/Options/maximumConnections``: all but
    /// the event streams and the registered cleaners.
    var served = 0
    private var subscribers = 0
    var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    init(options: ControlServer.Options, events: ControlEventFeed, registry: RegisteredCleaners) {
        self.options = options
        self.events = events
        self.registry = registry
    }

    // MARK: Polling

    func pollOrder() -> [UInt64] { connections.keys.sorted() }

    func descriptor(of id: UInt64) -> FileDescriptor { connections[id]!.descriptor }

    func interest(of id: UInt64) -> PollEvents { connections[id]!.interest }

    /// The earliest deadline of any connection, when the loop must wake even if nothing happens.
    var nextDeadline: ContinuousClock.Instant? { connections.values.compactMap(\.deadline).min() }

    // MARK: Admitting

    /// Takes a new connection in, making room by evicting the oldest one that has not sent a
    /// complete request, or turning this one away when every one has.
    mutating func admit(_ descriptor: FileDescriptor, now: ContinuousClock.Instant) {
        if served >= options.maximumConnections {
            let oldestReading = connections.filter { $0.value.isReading }.min {
                $0.value.acceptedAt < $1.value.acceptedAt
            }
            guard let (id, _) = oldestReading else {
                let message =
                    "the daemon is already answering \(options.maximumConnections) requests; try again shortly"
                Self.turnAway(descriptor, message: message, options: options)
                return
            }
            let message =
                "no complete request arrived before \(options.maximumConnections) other connections were open; "
                + "send the request line as soon as the connection is made"
            evict(id, message: message)
        }
        connections[nextID] = ControlConnection(
            descriptor: descriptor, acceptedAt: now, requestTimeout: options.requestTimeout)
        nextID += 1
        served += 1
    }

    /// One attempt to send a short error line (a fresh socket's buffer takes it), then close.
    private static func turnAway(_ descriptor: FileDescriptor, message: String, options: ControlServer.Options) {
        var outcome = ControlConnectionOutcome.answeredWithError(message)
        do {
            _ = try descriptor.sendAvailable(ControlLoop.errorLine(message), from: 0)
        } catch {
            outcome = .clientGone(error)
        }
        try? descriptor.shutdown(.both)
        descriptor.close()
        options.onConnectionFinished?(outcome)
    }

    private mutating func evict(_ id: UInt64, message: String) {
        guard let connection = connections[id] else { return }
        forget(id)
        Self.turnAway(connection.descriptor, message: message, options: options)
    }

    // MARK: Serving

    /// Does what `found` allows on connection `id`.
    mutating func serve(id: UInt64, found: PollEvents, now: ContinuousClock.Instant, loop: ControlLoop) {
        guard var connection = connections[id] else { return }
        switch connection.phase {
        case .reading:
            readRequest(&connection, id: id, now: now, loop: loop)
        case .waiting:
            // Only a hang-up is asked about: nobody is left to read the reply.
            if !found.isDisjoint(with: [.hungUp, .failed, .invalid]) {
                connection.outcome = .clientGone(.brokenPipe)
                close(id, connection)
                return
            }
        case .sending:
            send(&connection, id: id, now: now)
            return
        case .streaming:
            if !found.isDisjoint(with: [.readable, .hungUp, .failed, .invalid]), !peerStillThere(connection) {
                connection.outcome = .clientGone(.brokenPipe)
                close(id, connection)
                return
            }
            if found.contains(.writable) { stream(&connection, id: id, now: now) } else { connections[id] = connection }
            return
        case .registered(let session):
            serveRegistered(&connection, id: id, session: session, found: found, now: now, loop: loop)
            return
        }
        if connections[id] != nil { connections[id] = connection }
    }

    /// Reads what is waiting; once the line is complete (or the client half-closed after it),
    /// decodes it and moves on.
    private mutating func readRequest(
        _ connection: inout ControlConnection, id: UInt64, now: ContinuousClock.Instant, loop: ControlLoop
    ) {
        let limit = ControlProtocol.maximumRequestBytes
        var endOfFile = false
        while connection.input.count < limit {
            let received: NonBlockingReceive
            do {
                received = try connection.descriptor.receiveAvailable(into: &scratch)
            } catch {
                connection.outcome = .clientGone(error)
                close(id, connection)
                return
            }
            guard case .received(let count) = received else {
                endOfFile = received == .endOfFile
                break
            }
            let chunk = scratch[..<min(count, limit - connection.input.count + 1)]
            if let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) {
                connection.input += chunk[..<newline]
                // Anything after the line is not read: one request per connection.
                return decide(&connection, id: id, now: now, loop: loop)
            }
            connection.input += chunk
        }
        if connection.input.count >= limit {
            return refuse(&connection, id: id, "the request is longer than \(limit) bytes", now: now)
        }
        guard endOfFile else { return }
        if connection.input.isEmpty {
            connection.outcome = .noRequest
            close(id, connection)
            return
        }
        decide(&connection, id: id, now: now, loop: loop)
    }

    /// Decodes the request line and either refuses it, starts a stream, or hands it to the engine.
    private mutating func decide(
        _ connection: inout ControlConnection, id: UInt64, now: ContinuousClock.Instant, loop: ControlLoop
    ) {
        let request: ControlRequest
        switch ControlProtocol.decodeRequest(connection.input) {
        case .success(let decoded): request = decoded
        case .failure(let failure): return refuse(&connection, id: id, failure.description, now: now)
        }
        connection.input = []
        if case .events(let recent) = request.command {
            return subscribe(&connection, id: id, recent: recent, now: now)
        }
        if case .registerCleaner(let registration) = request.command {
            return register(&connection, registration, id: id, now: now, loop: loop)
        }
        let slot = loop.replySlot(for: id)
        connection.phase = .waiting(slot)
        connection.deadline = options.replyTimeout.map { now + $0 }
        connections[id] = connection
        loop.handOver(request, slot: slot)
    }

    /// Starts a stream: the greeting, then the `recent` newest events remembered (when asked
    /// for), then every event from the moment of the subscription.
    private mutating func subscribe(
        _ connection: inout ControlConnection, id: UInt64, recent: Int, now: ContinuousClock.Instant
    ) {
        guard subscribers < options.maximumSubscribers else {
            return refuse(
                &connection, id: id,
                "the daemon already streams events to \(options.maximumSubscribers) clients; "
                    + "close one (a 'quotawatch watch' attached to this daemon) or try again later", now: now)
        }
        let (subscription, remembered) = events.subscribe(recent: recent)
        connection.phase = .streaming(subscription)
        connection.append(Array(events.subscribedLine(recent: recent > 0 ? remembered.count : nil).utf8) + [0x0A])
        if !remembered.isEmpty { connection.append(ControlConnection.eventLines(remembered)) }
        connection.deadline = now + options.sendTimeout
        served -= 1
        subscribers += 1
        stream(&connection, id: id, now: now)
    }

    mutating func refuse(
        _ connection: inout ControlConnection, id: UInt64, _ message: String, now: ContinuousClock.Instant
    ) {
        connection.reply(
            ControlLoop.errorLine(message), outcome: .answeredWithError(message), deadline: now + options.sendTimeout)
        send(&connection, id: id, now: now)
    }

    /// Sends what the socket takes; closes once the reply has gone, or the client is gone.
    mutating func send(_ connection: inout ControlConnection, id: UInt64, now: ContinuousClock.Instant) {
        do {
            if try connection.flush() {
                close(id, connection)
                return
            }
        } catch {
            connection.outcome = .clientGone(error)
            close(id, connection)
            return
        }
        connections[id] = connection
    }

    /// Sends a subscriber what the socket takes; the deadline runs only while it takes nothing.
    /// Every line queued on a connection that stays open comes through here, so this is where
    /// one that overflowed ``ControlConnection/maximumQueuedBytes`` is dropped.
    mutating func stream(_ connection: inout ControlConnection, id: UInt64, now: ContinuousClock.Instant) {
        if connection.overflowed { return dropOverflowing(connection, id: id) }
        let before = connection.sent
        do {
            if try connection.flush() {
                connection.deadline = nil
            } else if connection.sent != before {
                connection.deadline = now + options.sendTimeout
            }
        } catch {
            connection.outcome = .clientGone(error)
            close(id, connection)
            return
        }
        connections[id] = connection
    }

    /// A subscriber sends nothing after its request: a readable socket is one it closed,
    /// unless it sent stray bytes, which are read and dropped.
    private mutating func peerStillThere(_ connection: ControlConnection) -> Bool {
        for _ in 0..<4 {
            switch try? connection.descriptor.receiveAvailable(into: &scratch) {
            case .received: continue
            case .wouldBlock: return true
            case .endOfFile, nil: return false
            }
        }
        return true
    }

    /// Moves queued event lines into every idle subscriber's output and sends what goes.
    mutating func feedSubscribers(now: ContinuousClock.Instant) {
        for (id, connection) in connections {
            if case .registered(let session) = connection.phase {
                feedRegistered(connection, id: id, session: session, now: now)
                continue
            }
            guard case .streaming(let subscription) = connection.phase, !connection.hasOutput else { continue }
            guard let lines = subscription.take() else {
                var closing = connection
                closing.outcome = .replied
                close(id, closing)
                continue
            }
            guard !lines.isEmpty else { continue }
            var feeding = connection
            feeding.append(ControlConnection.eventLines(lines))
            feeding.deadline = now + options.sendTimeout
            stream(&feeding, id: id, now: now)
        }
    }

    // MARK: Replies and deadlines

    /// The engine's answer (or the error that stands for it) for connection `id`.
    mutating func replyArrived(
        id: UInt64, line: [UInt8], outcome: ControlConnectionOutcome, now: ContinuousClock.Instant
    ) {
        guard var connection = connections[id] else { return }
        if case .registered(var session) = connection.phase {
            // The answer to a status request of a registered cleaner: it stays open.
            session.statusRequests = max(session.statusRequests - 1, 0)
            connection.phase = .registered(session)
            connection.append(line)
            return sendQueued(&connection, id: id, now: now)
        }
        guard case .waiting = connection.phase else { return }
        connection.reply(line, outcome: outcome, deadline: now + options.sendTimeout)
        send(&connection, id: id, now: now)
    }

    /// Gives up on connections past their deadline.
    mutating func expire(now: ContinuousClock.Instant) {
        for (id, connection) in connections {
            guard let deadline = connection.deadline, deadline <= now else { continue }
            var expired = connection
            switch connection.phase {
            case .reading:
                let message =
                    expired.input.isEmpty
                    ? "no request arrived within \(DurationText.seconds(options.requestTimeout))"
                    : "the request line was not complete within \(DurationText.seconds(options.requestTimeout)) "
                        + "of connecting (\(expired.input.count) bytes came without a newline)"
                refuse(&expired, id: id, message, now: now)
            case .waiting(let slot):
                // Answered through the slot, like any other reply; a late engine answer is ignored.
                expired.deadline = nil
                connections[id] = expired
                slot.fill(.timedOut)
            case .sending, .streaming, .registered:
                expired.outcome = .clientGone(.resourceTemporarilyUnavailable)
                close(id, expired)
            }
        }
    }

    // MARK: Closing

    /// Closes a connection whose client asked for more than it read, saying so in the log, and
    /// to the call waiting on a registered cleaner's reply.
    private mutating func dropOverflowing(_ connection: ControlConnection, id: UInt64) {
        let limit = ControlConnection.maximumQueuedBytes
        var who = "a control client"
        if case .registered(let session) = connection.phase {
            who = "the registered cleaner '\(session.registration.name)'"
        } else if connection.isStreaming {
            who = "an events subscriber"
        }
        let reason =
            "\(who) was dropped: \(connection.queuedBytes) bytes waited for it to read and more came, past the "
            + "\(limit)-byte bound on a connection's output; a client must read what it is sent"
        registry.fail(id: id, reason)
        Log.warning(reason)
        var dropped = connection
        dropped.outcome = .dropped(reason)
        close(id, dropped)
    }

    private mutating func forget(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        if case .streaming(let subscription) = connection.phase {
            events.unsubscribe(subscription)
            subscribers -= 1
        } else if case .registered(let session) = connection.phase {
            events.unsubscribe(session.subscription)
            registry.unregister(id: id)
        } else {
            served -= 1
        }
    }

    /// Closes connection `id` (shutdown first, so the client sees the end even if a child
    /// process inherited a copy) and reports how it ended.
    mutating func close(_ id: UInt64, _ connection: ControlConnection) {
        forget(id)
        try? connection.descriptor.shutdown(.both)
        connection.descriptor.close()
        options.onConnectionFinished?(connection.outcome)
    }

    /// The server is stopping: requests still waiting for the engine are answered "shutting
    /// down", replies being sent get a second to go, everything else closes now.
    mutating func shutDown() {
        let message = "the daemon is shutting down"
        let now = ContinuousClock.now
        for (id, connection) in connections {
            var ending = connection
            switch connection.phase {
            case .waiting(let slot) where slot.claim():
                ending.reply(ControlLoop.errorLine(message), outcome: .answeredWithError(message), deadline: now)
                send(&ending, id: id, now: now)
            case .sending:
                break
            default:
                close(id, ending)
            }
        }
        let giveUp = now + .seconds(1)
        while !connections.isEmpty, ContinuousClock.now < giveUp {
            let ids = pollOrder()
            let requests = ids.map { PollRequest(connections[$0]!.descriptor, .writable) }
            guard let ready = try? Poller.wait(requests, timeoutMilliseconds: 100) else { break }
            for (id, found) in zip(ids, ready) where !found.isEmpty {
                var sending = connections[id]!
                send(&sending, id: id, now: ContinuousClock.now)
            }
        }
        for (id, connection) in connections {
            var abandoned = connection
            abandoned.outcome = .clientGone(.resourceTemporarilyUnavailable)
            close(id, abandoned)
        }
        events.closeAll()
    }
}
