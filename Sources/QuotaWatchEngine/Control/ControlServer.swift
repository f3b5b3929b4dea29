import Dispatch
import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Why the control socket could not be set up. Each description names the path and a way out.
public enum ControlServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A live daemon answers on the path.
    case alreadyRunning(path: [UInt8])
    /// Something that is not a socket is at the path; it is never removed.
    case notASocket(path: [UInt8])
    /// The path does not fit in a socket address.
    case pathTooLong(path: [UInt8])
    /// The socket's directory already exists and belongs to another user (not root), who could
    /// swap the socket for one of their own.
    case untrustedDirectory(path: [UInt8], ownerID: UInt32)
    /// The socket's directory already exists and others may write to it (``SocketTrust``).
    case unsafeDirectory(path: [UInt8], reason: String)
    /// A system call failed; `action` says what was being done to `path`.
    case system(path: [UInt8], action: String, Errno)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            return "another quotawatch daemon is already listening on \(HumanText.name(path)); "
                + "stop it first, or give this one its own socket with --socket PATH"
        case .notASocket(let path):
            return "\(HumanText.name(path)) exists and is not a socket, so quotawatch will not replace it; "
                + "move it away, or choose another path with --socket PATH"
        case .pathTooLong(let path):
            return "the socket path \(HumanText.name(path)) is \(path.count) bytes, longer than the "
                + "\(UnixSocket.maximumPathLength) a Unix socket allows; choose a shorter one with --socket PATH"
        case .untrustedDirectory(let path, let ownerID):
            return "\(HumanText.name(path)) belongs to user \(ownerID), not to you, so quotawatch will not put "
                + "its socket there; remove it, or choose another path with --socket PATH"
        case .unsafeDirectory(let path, let reason):
            return "\(HumanText.name(path)) is not safe for the socket: \(reason), so another user could put "
                + "a socket of their own there; make it mode 0700 (chmod 700), or choose another path with --socket PATH"
        case .system(let path, let action, let error):
            return "could not \(action) \(HumanText.name(path)): \(error)"
        }
    }
}

/// How one control connection ended, for the daemon's log and for tests.
public enum ControlConnectionOutcome: Hashable, Sendable {
    /// The handler's document was sent in full.
    case replied
    /// An error document was sent instead: the request was refused, or no answer came.
    case answeredWithError(String)
    /// The client hung up or stopped reading before the reply was sent in full.
    case clientGone(Errno)
    /// The client closed without sending anything, as ``ControlServer`` itself does when it
    /// checks whether a daemon is alive.
    case noRequest
}

/// The daemon's answer to one request. The engine thread calls ``send(_:)`` or ``fail(_:)``
/// and returns at once; the document is encoded and written on the connection's own thread,
/// so neither JSON nor a slow or vanished client ever costs the engine time.
///
/// Only the first answer counts. A reply that is dropped unanswered answers the client with
/// an error document instead of leaving it waiting.
public final class ControlReply: Sendable {
    private let slot: ReplySlot

    init(slot: ReplySlot) { self.slot = slot }

    deinit { slot.fill(.dropped) }

    /// Hands over the reply, to be encoded as one JSON document. The server adds the newline
    /// that ends it; a newline inside the document (which JSON allows only between tokens) is
    /// sent as a space so that it cannot end the reply early.
    public func send(_ document: some ControlReplyDocument) {
        slot.fill(.document(document))
    }

    /// Answers with `{"error": message}`.
    public func fail(_ message: String) {
        slot.fill(.error(message))
    }
}

/// The control socket of `quotawatch run`: one request line in, one JSON document out.
///
/// The socket is bound in `init` (so "already running" is known at once) and answered after
/// ``start()``. An accept thread hands each connection to a short-lived thread of its own,
/// which reads the request, calls the handler, waits for its ``ControlReply`` and sends it.
public final class ControlServer: Sendable {
    /// How long connections may take, and how many may be open at once.
    public struct Options: Sendable {
        /// How long a client may take to send its request line.
        public var requestTimeout: Duration
        /// How long a send of the reply may wait for a client that does not read.
        public var sendTimeout: Duration
        /// How long to wait for the handler's reply; nil waits until it comes or is dropped.
        public var replyTimeout: Duration?
        /// Connections beyond this many are answered with an error at once.
        public var maximumConnections: Int
        /// Called on the connection's thread as each connection ends.
        public var onConnectionFinished: (@Sendable (ControlConnectionOutcome) -> Void)?
        /// Event lines kept per event-stream client before the oldest are dropped.
        public var eventCapacity = 4096

        public init(
            requestTimeout: Duration = .seconds(5), sendTimeout: Duration = .seconds(30),
            replyTimeout: Duration? = .seconds(600), maximumConnections: Int = 32,
            onConnectionFinished: (@Sendable (ControlConnectionOutcome) -> Void)? = nil
        ) {
            self.requestTimeout = requestTimeout
            self.sendTimeout = sendTimeout
            self.replyTimeout = replyTimeout
            self.maximumConnections = maximumConnections
            self.onConnectionFinished = onConnectionFinished
        }
    }

    public let socketPath: [UInt8]
    /// Where the engine publishes events for clients that asked for the stream.
    public let events: ControlEventFeed
    private let listener: UnixSocketListener
    private let connections: ConnectionRegistry
    private let phase = Mutex<Phase>(.bound)

    private enum Phase {
        case bound
        case running(acceptLoop: JoinableThread)
        case stopped
    }

    /// Binds the socket at `socketPath`, mode 0600, making its directory (mode 0700) if it is
    /// missing. A socket already there is probed: if a daemon answers, this throws
    /// ``ControlServerError/alreadyRunning(path:)``; if the connection is refused, it was left
    /// by a daemon that crashed and is replaced. Anything else at the path is left alone.
    ///
    /// `handler` runs on the connection's thread for every request that ``ControlProtocol``
    /// decoded and checked, and should hand the request to the engine and return.
    public init(
        socketPath: [UInt8], options: Options = Options(),
        handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void
    ) throws(ControlServerError) {
        guard socketPath.count <= UnixSocket.maximumPathLength else { throw .pathTooLong(path: socketPath) }
        let directory = Self.directory(of: socketPath)
        let lock = try Self.prepareDirectory(directory)
        defer { lock?.close() }
        self.socketPath = socketPath
        self.listener = try Self.bindReplacingStaleSocket(at: socketPath)
        self.events = ControlEventFeed(capacity: options.eventCapacity)
        self.connections = ConnectionRegistry(options: options, events: events, handler: handler)
    }

    deinit { stop() }

    /// Starts answering on a thread of its own. Calling it again does nothing.
    public func start() {
        phase.withLock { phase in
            guard case .bound = phase else { return }
            let listener = self.listener
            let connections = self.connections
            let thread = JoinableThread(name: "quotawatch-control", stackSize: 256 * 1024) {
                Self.acceptLoop(listener, connections)
            }
            phase = .running(acceptLoop: thread)
        }
    }

    /// Stops accepting, answers requests still waiting for the engine with an error, ends
    /// every connection and joins its thread, closes the socket and removes its file, unless
    /// the path now names another daemon's socket. Calling it again does nothing.
    public func stop() {
        let previous = phase.withLock { phase in
            let previous = phase
            phase = .stopped
            return previous
        }
        if case .stopped = previous { return }
        // Locked like set-up, so that a quotawatch starting now cannot find this socket
        // refusing connections, take it for stale and replace it while this one is removing it.
        let lock = try? Self.lockDirectory(Self.directory(of: socketPath))
        defer { lock?.close() }
        if case .running(let acceptLoop) = previous {
            listener.shutdown()
            acceptLoop.join()
        }
        connections.shutDown()
        listener.unlinkIfStillBound()
        listener.close()
    }

    // MARK: Setting up

    /// The directory part of `path`: "." for a bare name, "/" for a name in the root.
    static func directory(of path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return Array(".".utf8) }
        return slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
    }

    /// Makes the socket's directory if needed, refuses one that another user could tamper
    /// with, and returns it open and locked (nil when it cannot be opened to lock).
    private static func prepareDirectory(_ directory: [UInt8]) throws(ControlServerError) -> FileDescriptor? {
        let info: UnixSocket.DirectoryInfo
        do {
            info = try UnixSocket.makeDirectory(directory, mode: 0o700)
        } catch {
            throw .system(path: directory, action: "make the socket directory", error)
        }
        let me = ProcessIdentity.effectiveUserID
        if !info.wasCreated && info.ownerID != me && info.ownerID != 0 {
            throw .untrustedDirectory(path: directory, ownerID: info.ownerID)
        }
        if !info.wasCreated, let reason = SocketTrust.unsafeMode(info.mode) {
            throw .unsafeDirectory(path: directory, reason: reason)
        }
        return try? lockDirectory(directory)
    }

    private static func lockDirectory(_ directory: [UInt8]) throws(Errno) -> FileDescriptor {
        let descriptor = try FileDescriptor.currentWorkingDirectory.openDirectory(directory, followSymlinks: true)
        do {
            try descriptor.lockExclusively()
        } catch {
            descriptor.close()
            throw error
        }
        return descriptor
    }

    /// Binds at `path`; a socket already there that refuses connections is removed first.
    /// Runs with the directory locked, so another quotawatch cannot be doing the same.
    private static func bindReplacingStaleSocket(at path: [UInt8]) throws(ControlServerError) -> UnixSocketListener {
        // Two rounds: the second bind fails only if something appeared after the stale socket
        // went, which a quotawatch holding the lock cannot have done.
        for _ in 0..<2 {
            do {
                return try UnixSocket.listen(at: path, mode: 0o600)
            } catch .addressInUse {
                try removeIfStale(path)
            } catch .nameTooLong {
                throw .pathTooLong(path: path)
            } catch {
                throw .system(path: path, action: "listen on", error)
            }
        }
        throw .system(path: path, action: "listen on", .addressInUse)
    }

    private static func removeIfStale(_ path: [UInt8]) throws(ControlServerError) {
        let kind: UnixSocket.PathKind
        do {
            kind = try UnixSocket.kind(at: path)
        } catch {
            throw .system(path: path, action: "inspect", error)
        }
        let identity: UnixSocket.FileIdentity
        switch kind {
        case .missing: return
        case .other: throw .notASocket(path: path)
        case .socket(let found): identity = found
        }
        do {
            let probe = try UnixSocket.connect(to: path, timeout: .seconds(1))
            probe.close()
        } catch .connectionRefused {
            // Nothing listens: a daemon crashed without removing it. Remove exactly that socket.
            guard (try? UnixSocket.kind(at: path)) == .socket(identity) else { return }
            do {
                try UnixSocket.unlink(path)
            } catch {
                throw .system(path: path, action: "remove the stale socket", error)
            }
            return
        } catch .resourceTemporarilyUnavailable {
            // Its backlog is full: alive, and busy.
            throw .alreadyRunning(path: path)
        } catch {
            throw .system(path: path, action: "connect (to see whether a daemon answers) to", error)
        }
        throw .alreadyRunning(path: path)
    }

    // MARK: Serving

    private static func acceptLoop(_ listener: UnixSocketListener, _ connections: ConnectionRegistry) {
        while true {
            let connection: FileDescriptor
            do {
                connection = try listener.accept()
            } catch .invalidArgument {
                return  // shut down by stop()
            } catch {
                if connections.isShutDown { return }
                // Out of descriptors (EMFILE) or memory, accept would fail again at once while
                // the connection waits, so give other threads a moment to close theirs.
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            connections.serve(connection)
        }
    }
}

/// The state the accept thread and the connection threads share with ``ControlServer``.
final class ConnectionRegistry: Sendable {
    private let options: ControlServer.Options
    private let events: ControlEventFeed
    private let handler: @Sendable (ControlRequest, ControlReply) -> Void
    private let state = Mutex(State())

    private struct State {
        /// Connections being served, by id; a thread removes its own before closing it, so a
        /// descriptor here is never one the kernel has handed out again.
        var open: [UInt64: FileDescriptor] = [:]
        var threads: [UInt64: JoinableThread] = [:]
        /// The slots of connections waiting for the engine, by connection id.
        var waitingReplies: [UInt64: ReplySlot] = [:]
        var nextID: UInt64 = 0
        var isShutDown = false
    }

    init(
        options: ControlServer.Options, events: ControlEventFeed,
        handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void
    ) {
        self.options = options
        self.events = events
        self.handler = handler
    }

    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Answers every request still waiting for the engine with "shutting down", ends every
    /// open connection (a thread blocked reading a request or sending a reply returns at
    /// once) and joins every connection thread.
    func shutDown() {
        let (waiting, threads) = state.withLock { state in
            state.isShutDown = true
            // One waiting for the engine is answered "shutting down" instead, a short reply
            // that its socket buffer takes at once.
            for (id, connection) in state.open where state.waitingReplies[id] == nil {
                try? connection.shutdown(.both)
            }
            return (Array(state.waitingReplies.values), Array(state.threads.values))
        }
        for slot in waiting { slot.fill(.shuttingDown) }
        events.closeAll()
        for thread in threads { thread.join() }
        state.withLock { $0.threads.removeAll() }
    }

    /// Serves `connection` on a thread of its own, or refuses it when too many are open or
    /// the server is stopping.
    func serve(_ connection: FileDescriptor) {
        reapFinishedThreads()
        let id: UInt64? = state.withLock { state in
            guard !state.isShutDown, state.open.count < options.maximumConnections else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.open[id] = connection
            return id
        }
        guard let id else {
            // A fresh socket's buffer takes this short reply without blocking.
            let message = "the daemon is already answering \(options.maximumConnections) requests; try again shortly"
            send(connection, ControlProtocol.errorDocument(message), outcome: .answeredWithError(message))
            return
        }
        let thread = JoinableThread(name: "quotawatch-control-connection", stackSize: 512 * 1024) { [self] in
            handle(connection, id: id)
        }
        state.withLock { $0.threads[id] = thread }
    }

    private func reapFinishedThreads() {
        let finished = state.withLock { state in
            let done = state.threads.filter { $0.value.hasFinished }
            for id in done.keys { state.threads.removeValue(forKey: id) }
            return Array(done.values)
        }
        for thread in finished { thread.join() }
    }

    private func handle(_ connection: FileDescriptor, id: UInt64) {
        try? connection.setReceiveTimeout(options.requestTimeout)
        try? connection.setSendTimeout(options.sendTimeout)
        let (document, outcome) = answer(connection, id: id)
        let isOpen = state.withLock { $0.open.removeValue(forKey: id) != nil }
        guard isOpen else { return }
        send(connection, document, outcome: outcome)
    }

    /// Reads the request, has the engine answer it, and returns what to send back.
    private func answer(_ connection: FileDescriptor, id: UInt64) -> ([UInt8]?, ControlConnectionOutcome) {
        let line: ReceivedLine
        do {
            line = try connection.receiveLine(maximumBytes: ControlProtocol.maximumRequestBytes)
        } catch .resourceTemporarilyUnavailable {
            return refusal("no request arrived within \(DurationText.seconds(options.requestTimeout))")
        } catch {
            return (nil, .clientGone(error))
        }
        switch line.ending {
        case .limitReached:
            return refusal("the request is longer than \(ControlProtocol.maximumRequestBytes) bytes")
        case .endOfFile where line.bytes.isEmpty:
            return (nil, .noRequest)
        case .endOfFile, .newline:
            break
        }
        let request: ControlRequest
        switch ControlProtocol.decodeRequest(line.bytes) {
        case .success(let decoded): request = decoded
        case .failure(let failure): return refusal(failure.description)
        }
        if request.command == .events { return streamEvents(connection) }
        switch waitForReply(to: request, id: id) {
        case .document(let document):
            return (document.replyJSON(), .replied)
        case .error(let message):
            return refusal(message)
        case .dropped:
            return refusal("the daemon dropped the request without answering")
        case .timedOut:
            return refusal("the daemon did not answer within \(DurationText.seconds(options.replyTimeout ?? .zero))")
        case .shuttingDown:
            return refusal("the daemon is shutting down")
        }
    }

    private func waitForReply(to request: ControlRequest, id: UInt64) -> ReplySlot.Outcome {
        let slot = ReplySlot()
        let registered = state.withLock { state in
            guard !state.isShutDown else { return false }
            state.waitingReplies[id] = slot
            return true
        }
        guard registered else { return .shuttingDown }
        // The reply object lives only as long as the handler (or the engine) keeps it, so
        // dropping it unsent fills the slot with `.dropped`.
        handler(request, ControlReply(slot: slot))
        let outcome = slot.wait(timeout: options.replyTimeout)
        state.withLock { _ = $0.waitingReplies.removeValue(forKey: id) }
        return outcome
    }

    /// Sends every event line the engine publishes until the client hangs up or the server
    /// stops. Runs on the connection's thread; the engine never waits for it.
    private func streamEvents(_ connection: FileDescriptor) -> ([UInt8]?, ControlConnectionOutcome) {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription) }
        // A late subscriber must not outlive a shutdown that began before it subscribed.
        if isShutDown { return (nil, .replied) }
        var greeting = Array(#"{"capacity":\#(events.capacity),"event":"subscribed"}"#.utf8)
        greeting.append(UInt8(ascii: "\n"))
        do {
            try connection.sendAll(greeting)
            while let lines = subscription.next(timeout: .seconds(1)) {
                if isShutDown { break }
                guard !lines.isEmpty else {
                    // The client sends nothing after its request: a readable socket is one it
                    // closed, found here rather than at the next event, which may be hours away.
                    if let ready = try? Readiness.wait(for: [connection], timeoutMilliseconds: 0), !ready.isEmpty {
                        return (nil, .clientGone(.brokenPipe))
                    }
                    continue
                }
                var bytes: [UInt8] = []
                for line in lines {
                    bytes += line.utf8.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
                    bytes.append(UInt8(ascii: "\n"))
                }
                try connection.sendAll(bytes)
            }
        } catch {
            return (nil, .clientGone(error))
        }
        return (nil, .replied)
    }

    private func refusal(_ message: String) -> ([UInt8]?, ControlConnectionOutcome) {
        (ControlProtocol.errorDocument(message), .answeredWithError(message))
    }

    /// Sends `document` as one line (if any), then closes: shutdown first, so the client sees
    /// the end even if a child process inherited a copy of the descriptor.
    private func send(_ connection: FileDescriptor, _ document: [UInt8]?, outcome: ControlConnectionOutcome) {
        var outcome = outcome
        // A reply still being sent when the server stops may not keep it waiting long.
        if isShutDown { try? connection.setSendTimeout(.seconds(1)) }
        if let document {
            var line = document.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
            line.append(UInt8(ascii: "\n"))
            do {
                try connection.sendAll(line)
            } catch {
                outcome = .clientGone(error)
            }
        }
        try? connection.shutdown(.both)
        connection.close()
        options.onConnectionFinished?(outcome)
    }
}

/// Where one connection's thread waits for the engine's reply.
final class ReplySlot: Sendable {
    enum Outcome: Sendable {
        case document(any ControlReplyDocument)
        case error(String)
        case dropped
        case timedOut
        case shuttingDown
    }

    private let outcome = Mutex<Outcome?>(nil)
    private let filled = DispatchSemaphore(value: 0)

    /// Sets the outcome unless one is already set: the first one wins.
    func fill(_ value: Outcome) {
        let isFirst = outcome.withLock { current in
            guard case .none = current else { return false }
            current = value
            return true
        }
        if isFirst { filled.signal() }
    }

    func wait(timeout: Duration?) -> Outcome {
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            // Capped at a year, which is forever here and keeps the nanoseconds in range.
            let nanoseconds =
                Int(min(max(seconds, 0), 365 * 24 * 3600)) * 1_000_000_000
                + Int(max(attoseconds, 0) / 1_000_000_000)
            if filled.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                fill(.timedOut)
            }
        } else {
            filled.wait()
        }
        return outcome.withLock { $0 ?? .timedOut }
    }
}

/// Durations in messages: "5s", "0.25s".
enum DurationText {
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        var text = String(Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text + "s"
    }
}
