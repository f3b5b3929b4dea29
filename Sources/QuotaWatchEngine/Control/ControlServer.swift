import Dispatch
import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Why the control socket could not be set up. Each description names the path and a way out.
package enum ControlServerError: Error, Hashable, Sendable, CustomStringConvertible {
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

    package var description: String {
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
            return "could not \(action) \(HumanText.name(path)): \(DescriptorShortage.startupReason(error))"
        }
    }
}

/// How one control connection ended, for the daemon's log and for tests.
package enum ControlConnectionOutcome: Hashable, Sendable {
    /// The handler's document was sent in full.
    case replied
    /// An error document was sent instead: the request was refused, or no answer came.
    case answeredWithError(String)
    /// The client hung up or stopped reading before the reply was sent in full.
    case clientGone(Errno)
    /// The client was sent more than it read, past ``ControlConnection/maximumQueuedBytes``,
    /// and was closed; the reason is logged.
    case dropped(String)
    /// The client closed without sending anything, as ``ControlServer`` itself does when it
    /// checks whether a daemon is alive.
    case noRequest
}

/// The daemon's answer to one request. The engine thread calls ``send(_:)`` or ``fail(_:)``
/// and returns at once; the document is encoded on a worker thread and written by the
/// serving thread, so neither JSON nor a slow or vanished client ever costs the engine time.
///
/// Only the first answer counts. A reply that is dropped unanswered answers the client with
/// an error document instead of leaving it waiting.
package final class ControlReply: Sendable {
    private let slot: ReplySlot

    init(slot: ReplySlot) { self.slot = slot }

    deinit { slot.fill(.dropped) }

    /// Hands over the reply, to be encoded as one JSON document. The server adds the newline
    /// that ends it; a newline inside the document (which JSON allows only between tokens) is
    /// sent as a space so that it cannot end the reply early.
    package func send(_ document: some ControlReplyDocument) {
        slot.fill(.document(document))
    }

    /// Answers with `{"error": message}`.
    package func fail(_ message: String) {
        slot.fill(.error(message))
    }
}

/// The control socket of `quotawatch run`: one request line in, one JSON document out.
///
/// The socket is bound in `init` (so "already running" is known at once) and answered after
/// ``start()`` by one thread, ``ControlLoop``, that serves every connection from one `poll`;
/// the bounds on connections and their times are described there and in ``Options``.
package final class ControlServer: Sendable {
    /// How long connections may take, and how many may be open at once.
    package struct Options: Sendable {
        /// How long a client may take, from the moment it is accepted, to send its whole
        /// request line; sending it a byte at a time does not extend it.
        package var requestTimeout: Duration
        /// How long a reply may take to be sent in full once it is ready, and how long an
        /// event stream's socket may take nothing before the subscriber is dropped.
        package var sendTimeout: Duration
        /// How long to wait for the handler's reply; nil waits until it comes or is dropped.
        package var replyTimeout: Duration?
        /// Connections served at once, event streams apart. One more evicts the oldest that
        /// has not sent a complete request, or, if every one has, is answered with an error.
        package var maximumConnections: Int
        /// Event streams at once; one more is answered with an error.
        package var maximumSubscribers: Int
        /// Called on the serving thread as each connection ends.
        package var onConnectionFinished: (@Sendable (ControlConnectionOutcome) -> Void)?
        /// Event lines kept per event-stream client before the oldest are dropped.
        package var eventCapacity = 4096
        /// Registered cleaners at once, counted apart from the other connections.
        package var maximumRegisteredCleaners = RegisteredCleaners.defaultCapacity
        /// The daemon's ROOT (absolute, escaped as paths are), written as `root` in the lines
        /// the stream adds itself (`subscribed`, `dropped`), as the engine's lines carry it.
        package var eventRoot: String?

        package init(
            requestTimeout: Duration = .seconds(5), sendTimeout: Duration = .seconds(30),
            replyTimeout: Duration? = .seconds(600), maximumConnections: Int = 128, maximumSubscribers: Int = 32,
            onConnectionFinished: (@Sendable (ControlConnectionOutcome) -> Void)? = nil
        ) {
            self.requestTimeout = requestTimeout
            self.sendTimeout = sendTimeout
            self.replyTimeout = replyTimeout
            self.maximumConnections = max(maximumConnections, 1)
            self.maximumSubscribers = max(maximumSubscribers, 0)
            self.onConnectionFinished = onConnectionFinished
        }
    }

    package let socketPath: [UInt8]
    /// Where the engine publishes events for clients that asked for the stream.
    package let events: ControlEventFeed
    /// The cleaners programs registered on this socket (`register_cleaner`).
    package let registeredCleaners: RegisteredCleaners
    private let listener: UnixSocketListener
    private let loop: ControlLoop
    private let waker: ControlLoopWaker
    private let phase = Mutex<Phase>(.bound)

    private enum Phase {
        case bound
        case running(serving: JoinableThread)
        case stopped
    }

    /// Binds the socket at `socketPath`, mode 0600, making its directory (mode 0700) if it is
    /// missing. A socket already there is probed: if a daemon answers, this throws
    /// ``ControlServerError/alreadyRunning(path:)``; if the connection is refused, it was left
    /// by a daemon that crashed and is replaced. Anything else at the path is left alone.
    ///
    /// `handler` runs on the serving thread for every request that ``ControlProtocol``
    /// decoded and checked, and should hand the request to the engine and return.
    package init(
        socketPath: [UInt8], options: Options = Options(),
        handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void
    ) throws(ControlServerError) {
        guard socketPath.count <= UnixSocket.maximumPathLength else { throw .pathTooLong(path: socketPath) }
        let directory = Self.directory(of: socketPath)
        let lock = try Self.prepareDirectory(directory)
        defer { lock?.close() }
        let waker: ControlLoopWaker
        do {
            waker = try ControlLoopWaker()
        } catch {
            throw .system(path: socketPath, action: "make the wake-up event of the thread that serves", error)
        }
        // Taken before the socket exists, so that the first connection already finds it.
        let spare: SpareDescriptor
        do {
            spare = try SpareDescriptor()
        } catch {
            waker.close()
            throw .system(path: socketPath, action: "keep a descriptor in reserve for the thread that serves", error)
        }
        let listener: UnixSocketListener
        do {
            listener = try Self.bindReplacingStaleSocket(at: socketPath)
        } catch {
            waker.close()
            var unused = spare
            unused.close()
            throw error
        }
        self.socketPath = socketPath
        self.listener = listener
        self.waker = waker
        self.events = ControlEventFeed(
            capacity: options.eventCapacity, root: options.eventRoot, onReady: { waker.wake() })
        self.registeredCleaners = RegisteredCleaners(capacity: options.maximumRegisteredCleaners)
        self.loop = ControlLoop(
            listener: listener, options: options, events: events, registry: registeredCleaners, waker: waker,
            spare: spare, handler: handler)
    }

    deinit { stop() }

    /// Starts answering on a thread of its own. Calling it again does nothing.
    package func start() {
        phase.withLock { phase in
            guard case .bound = phase else { return }
            let loop = self.loop
            let thread = JoinableThread(name: "quotawatch-control", stackSize: 512 * 1024) { loop.run() }
            phase = .running(serving: thread)
        }
    }

    /// Stops accepting, answers requests still waiting for the engine with an error, ends
    /// every connection and joins the serving thread, closes the socket and removes its file, unless
    /// the path now names another daemon's socket. Calling it again does nothing.
    package func stop() {
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
        if case .running(let serving) = previous {
            loop.requestStop()
            serving.join()
        }
        listener.unlinkIfStillBound()
        listener.close()
        waker.close()
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

}

/// Where the engine's reply to one connection goes: the first outcome is handed to
/// `onFill` (which passes it to the serving thread), later ones are ignored.
final class ReplySlot: Sendable {
    enum Outcome: Sendable {
        case document(any ControlReplyDocument)
        case error(String)
        case dropped
        case timedOut
        case shuttingDown
    }

    private let isFilled = Mutex(false)
    private let onFill: @Sendable (Outcome) -> Void

    init(onFill: @escaping @Sendable (Outcome) -> Void) { self.onFill = onFill }

    /// Hands `value` on unless an outcome came first.
    func fill(_ value: Outcome) {
        if claim() { onFill(value) }
    }

    /// Marks the slot answered without handing anything on; false when an outcome came first.
    func claim() -> Bool {
        isFilled.withLock { filled in
            defer { filled = true }
            return !filled
        }
    }
}

/// Durations in messages: "5s", "0.25s".
enum DurationText {
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.clampedMilliseconds
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        var text = String(Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text + "s"
    }
}
