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
    /// A system call failed; `action` says what was being done to `path`.
    case system(path: [UInt8], action: String, Errno)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            return "another quotawatch daemon is already listening on \(EscapedName.string(path)); "
                + "stop it first, or give this one its own socket with --socket PATH"
        case .notASocket(let path):
            return "\(EscapedName.string(path)) exists and is not a socket, so quotawatch will not replace it; "
                + "move it away, or choose another path with --socket PATH"
        case .pathTooLong(let path):
            return "the socket path \(EscapedName.string(path)) is \(path.count) bytes, longer than the "
                + "\(UnixSocket.maximumPathLength) a Unix socket allows; choose a shorter one with --socket PATH"
        case .untrustedDirectory(let path, let ownerID):
            return "\(EscapedName.string(path)) belongs to user \(ownerID), not to you, so quotawatch will not put "
                + "its socket there; remove it, or choose another path with --socket PATH"
        case .system(let path, let action, let error):
            return "could not \(action) \(EscapedName.string(path)): \(error)"
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

/// The daemon's answer to one request. The engine thread calls ``send(_:)``; the bytes are
/// written on the connection's own thread, so a slow or vanished client never blocks the engine.
///
/// Only the first ``send(_:)`` counts. A reply that is dropped unsent answers the client with
/// an error document instead of leaving it waiting.
public final class ControlReply: Sendable {
    private let slot: ReplySlot

    init(slot: ReplySlot) { self.slot = slot }

    deinit { slot.fill(.dropped) }

    /// Hands over the reply, one JSON document, and returns at once. The server adds the
    /// newline that ends it; a newline inside the document (which JSON allows only between
    /// tokens) is sent as a space so that it cannot end the reply early.
    public func send(_ bytes: [UInt8]) {
        slot.fill(.document(bytes))
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
    private let listener: UnixSocketListener
    private let connections: ConnectionRegistry
    private let phase = Mutex<Phase>(.bound)

    private enum Phase {
        case bound
        case running(acceptLoopDone: DispatchSemaphore)
        case stopped
    }

    /// Binds the socket at `socketPath`, mode 0600, making its directory (mode 0700) if it is
    /// missing. A socket already there is probed: if a daemon answers, this throws
    /// ``ControlServerError/alreadyRunning(path:)``; if the connection is refused, it was left
    /// by a daemon that crashed and is replaced. Anything else at the path is left alone.
    ///
    /// `handler` runs on the connection's thread for every request with a known command, and
    /// should hand the request to the engine and return.
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
        self.connections = ConnectionRegistry(options: options, handler: handler)
    }

    deinit { stop() }

    /// Starts answering on a thread of its own. Calling it again does nothing.
    public func start() {
        phase.withLock { phase in
            guard case .bound = phase else { return }
            let done = DispatchSemaphore(value: 0)
            phase = .running(acceptLoopDone: done)
            let listener = self.listener
            let connections = self.connections
            let thread = Thread {
                Self.acceptLoop(listener, connections)
                done.signal()
            }
            thread.name = "quotawatch-control"
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    /// Stops accepting, answers requests still waiting for the engine with an error, closes
    /// the socket and removes its file, unless the path now names another daemon's socket.
    /// Calling it again does nothing.
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
        if case .running(let acceptLoopDone) = previous {
            listener.shutdown()
            acceptLoopDone.wait()
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
    private let handler: @Sendable (ControlRequest, ControlReply) -> Void
    private let state = Mutex(State())

    private struct State {
        var openConnections = 0
        var waitingReplies: [UInt64: ReplySlot] = [:]
        var nextSlotID: UInt64 = 0
        var isShutDown = false
    }

    init(options: ControlServer.Options, handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void) {
        self.options = options
        self.handler = handler
    }

    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Answers every request still waiting for the engine with "shutting down".
    func shutDown() {
        let waiting = state.withLock { state in
            state.isShutDown = true
            return Array(state.waitingReplies.values)
        }
        for slot in waiting { slot.fill(.shuttingDown) }
    }

    /// Serves `connection` on a thread of its own, or refuses it when too many are open.
    func serve(_ connection: FileDescriptor) {
        let admitted = state.withLock { state in
            guard state.openConnections < options.maximumConnections else { return false }
            state.openConnections += 1
            return true
        }
        guard admitted else {
            // A fresh socket's buffer takes this short reply without blocking.
            let message = "the daemon is already answering \(options.maximumConnections) requests; try again shortly"
            finish(connection, sending: ControlProtocol.errorDocument(message), outcome: .answeredWithError(message))
            return
        }
        let thread = Thread { [self] in
            handle(connection)
            state.withLock { $0.openConnections -= 1 }
        }
        thread.name = "quotawatch-control-connection"
        thread.stackSize = 512 * 1024
        thread.start()
    }

    private func handle(_ connection: FileDescriptor) {
        try? connection.setReceiveTimeout(options.requestTimeout)
        try? connection.setSendTimeout(options.sendTimeout)
        let line: ReceivedLine
        do {
            line = try connection.receiveLine(maximumBytes: ControlProtocol.maximumRequestBytes)
        } catch .resourceTemporarilyUnavailable {
            let seconds = DurationText.seconds(options.requestTimeout)
            return refuse(connection, "no request arrived within \(seconds)")
        } catch {
            return finish(connection, sending: nil, outcome: .clientGone(error))
        }
        switch line.ending {
        case .limitReached:
            return refuse(connection, "the request is longer than \(ControlProtocol.maximumRequestBytes) bytes")
        case .endOfFile where line.bytes.isEmpty:
            return finish(connection, sending: nil, outcome: .noRequest)
        case .endOfFile, .newline:
            break
        }
        let request: ControlRequest
        switch ControlRequest.decode(line.bytes) {
        case .success(let decoded): request = decoded
        case .failure(let failure): return refuse(connection, failure.description)
        }
        guard ControlRequest.knownCommands.contains(request.command) else {
            return refuse(connection, "unknown command '\(request.command)'")
        }
        switch waitForReply(to: request) {
        case .document(let document):
            finish(connection, sending: document, outcome: .replied)
        case .dropped:
            refuse(connection, "the daemon dropped the request without answering")
        case .timedOut:
            refuse(
                connection, "the daemon did not answer within \(DurationText.seconds(options.replyTimeout ?? .zero))")
        case .shuttingDown:
            refuse(connection, "the daemon is shutting down")
        }
    }

    private func waitForReply(to request: ControlRequest) -> ReplySlot.Outcome {
        let slot = ReplySlot()
        let registered = state.withLock { state in
            guard !state.isShutDown else { return nil as UInt64? }
            let id = state.nextSlotID
            state.nextSlotID += 1
            state.waitingReplies[id] = slot
            return id
        }
        guard let id = registered else { return .shuttingDown }
        // The reply object lives only as long as the handler (or the engine) keeps it, so
        // dropping it unsent fills the slot with `.dropped`.
        handler(request, ControlReply(slot: slot))
        let outcome = slot.wait(timeout: options.replyTimeout)
        state.withLock { _ = $0.waitingReplies.removeValue(forKey: id) }
        return outcome
    }

    private func refuse(_ connection: FileDescriptor, _ message: String) {
        finish(connection, sending: ControlProtocol.errorDocument(message), outcome: .answeredWithError(message))
    }

    /// Sends `document` as one line (if any), then closes: shutdown first, so the client sees
    /// the end even if a child process inherited a copy of the descriptor.
    private func finish(_ connection: FileDescriptor, sending document: [UInt8]?, outcome: ControlConnectionOutcome) {
        var outcome = outcome
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
        case document([UInt8])
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
