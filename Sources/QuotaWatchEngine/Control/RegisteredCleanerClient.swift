import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// A registered cleaner's answer to one context.
package struct RegisteredCleanerReply: Sendable, Hashable {
    package var freedBytes: UInt64
    /// Relative to ROOT, raw bytes.
    package var removed: [[UInt8]]
    /// Said instead of what was removed: the cleaner could not do its work.
    package var error: String?

    package init(freedBytes: UInt64 = 0, removed: [[UInt8]] = [], error: String? = nil) {
        self.freedBytes = freedBytes
        self.removed = removed
        self.error = error
    }

    /// The reply line for context `number`.
    package func line(context number: UInt64) -> [UInt8] {
        let line =
            if let error {
                RegisteredCleanerReplyLine(context: number, error: error)
            } else {
                RegisteredCleanerReplyLine(
                    context: number, freed: freedBytes, removed: removed.map { EscapedName.string($0) })
            }
        return ContractJSON.encode(line) + [0x0A]
    }
}

/// The Swift side of `register_cleaner`, as `contrib/python/quotawatch_client.py` is the
/// Python one: a connection that stays open, on which the daemon sends contexts and this
/// program's level and quota events, and which can ask for the quotas of its paths.
///
/// ``next()`` blocks on one thread; ``reply(_:to:)`` and ``requestQuotas()`` may be called
/// from another; ``close()`` unregisters.
package final class RegisteredCleanerConnection: Sendable {
    /// One line from the daemon.
    package enum Message: Sendable {
        case context(RegisteredCleanerContext)
        /// `level`, a `quota_*` event of its paths, a `cleanup` run it took part in: the line.
        case event(name: String, line: [UInt8])
        /// The answer to ``requestQuotas()``: the rows of its paths and the disk level.
        case quotas(QuotaStatus)
        case error(String)
    }

    private let connection: FileDescriptor
    private let pending = PendingLines()
    private let socketPath: [UInt8]
    /// `{"event":"registered","name":…,"paths":[…],"timeout_ms":N}`.
    package let greeting: [UInt8]

    /// Connects and registers `name` for `paths` (relative to ROOT). Throws the daemon's
    /// refusal (a name taken, too many cleaners, a path outside ROOT) as
    /// ``ControlClientError/daemonError(path:message:)``.
    ///
    /// `receiveTimeout`: ``next()`` returns nil when nothing came within it; nil waits forever.
    package init(
        socketPath: [UInt8], name: String, paths: [[UInt8]], timeout: Duration? = nil,
        connectTimeout: Duration = .seconds(10), receiveTimeout: Duration? = nil
    ) throws(ControlClientError) {
        self.socketPath = socketPath
        let connection = try ControlClient.connect(socketPath: socketPath, timeout: connectTimeout)
        self.connection = connection
        let request = ControlRequest(
            .registerCleaner(RegisterCleanerRequest(name: name, paths: paths, timeout: timeout)))
        do {
            greeting = try Self.register(
                request, on: connection, pending: pending, socketPath: socketPath, connectTimeout: connectTimeout,
                receiveTimeout: receiveTimeout)
        } catch {
            connection.close()
            throw error
        }
    }

    private static func register(
        _ request: ControlRequest, on connection: FileDescriptor, pending: PendingLines, socketPath: [UInt8],
        connectTimeout: Duration, receiveTimeout: Duration?
    ) throws(ControlClientError) -> [UInt8] {
        do {
            try connection.setReceiveTimeout(connectTimeout)
            try connection.sendAll(request.encodedLine())
        } catch {
            throw .system(path: socketPath, error)
        }
        guard let first = readLine(connection, pending) else {
            throw .protocolError(path: socketPath, detail: "the connection closed before the registration was answered")
        }
        if let message = ControlProtocol.errorMessage(in: first) {
            throw .daemonError(path: socketPath, message: message)
        }
        guard ContractLineHead.read(first)?.event == "registered" else {
            throw .protocolError(
                path: socketPath, detail: "the daemon does not take registered cleaners (an older quotawatch?)")
        }
        do {
            try connection.setReceiveTimeout(receiveTimeout ?? .zero)
        } catch {
            throw .system(path: socketPath, error)
        }
        return first
    }

    /// The next line from the daemon; nil once it closed the connection (or ``close()``).
    package func next() -> Message? {
        guard let line = Self.readLine(connection, pending) else { return nil }
        return Self.message(line)
    }

    static func message(_ line: [UInt8]) -> Message {
        let head = ContractLineHead.read(line)
        if let message = head?.error { return .error(message) }
        if let event = head?.event {
            if event == RegisteredCleanerContext.kind,
                let context = try? ContractJSON.decode(RegisteredCleanerContext.self, from: line)
            {
                return .context(context)
            }
            return .event(name: event, line: line)
        }
        if let status = try? QuotaStatus.decode(line) { return .quotas(status) }
        return .error("unexpected line from the daemon: \(HumanText.name(Array(line.prefix(200))))")
    }

    /// Sends the reply to `context`.
    package func reply(_ reply: RegisteredCleanerReply, to context: RegisteredCleanerContext) throws(Errno) {
        try connection.sendAll(reply.line(context: context.context))
    }

    /// Asks for the quotas of its paths; the answer comes as ``Message/quotas(_:)``.
    package func requestQuotas(sync: Bool = false) throws(Errno) {
        try connection.sendAll(ControlRequest(.status(.quotas), sync: sync).encodedLine())
    }

    /// Answers every context with `handler` until the daemon closes the connection, passing
    /// every other message to `onMessage`; returns early when `onMessage` returns false.
    package func serve(
        _ handler: (RegisteredCleanerContext) -> RegisteredCleanerReply, onMessage: (Message) -> Bool = { _ in true }
    ) {
        while let message = next() {
            if case .context(let context) = message {
                guard (try? reply(handler(context), to: context)) != nil else { return }
            } else if !onMessage(message) {
                return
            }
        }
    }

    /// Unregisters: the daemon drops the cleaner once the connection closes. A thread in
    /// ``next()`` returns nil.
    package func close() { try? connection.shutdown(.both) }

    deinit { connection.close() }

    private static func readLine(_ connection: FileDescriptor, _ pending: PendingLines) -> [UInt8]? {
        while true {
            if let line = pending.takeLine() { return line }
            guard let bytes = try? connection.receiveSome(maximumBytes: 64 * 1024), !bytes.isEmpty else { return nil }
            pending.append(bytes)
        }
    }
}

/// Bytes received and not yet returned as lines; the lock lets the connection be Sendable.
private final class PendingLines: Sendable {
    private let bytes = Mutex<[UInt8]>([])

    func append(_ more: [UInt8]) { bytes.withLock { $0 += more } }

    func takeLine() -> [UInt8]? {
        bytes.withLock { bytes in
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            defer { bytes.removeFirst(newline + 1) }
            return Array(bytes[..<newline])
        }
    }
}
