import Foundation
import QuotaWatchCore
import QuotaWatchSystem

/// Why a request to the daemon failed. Each description names the socket and a way out.
package enum ControlClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing answers at the path: no file there, or a socket nobody listens on.
    case noDaemon(path: [UInt8])
    /// The socket (or its directory) belongs to another user.
    case permissionDenied(path: [UInt8])
    /// No complete reply arrived within the timeout.
    case timedOut(path: [UInt8], timeout: Duration)
    /// Something answered, but not with one JSON document.
    case protocolError(path: [UInt8], detail: String)
    /// The daemon answered with an error document, `{"error":"…"}`.
    case daemonError(path: [UInt8], message: String)
    /// The path does not fit in a socket address.
    case pathTooLong(path: [UInt8])
    /// Connecting failed for another reason.
    case system(path: [UInt8], Errno)
    /// The socket, a directory above it, or the process listening on it is not this user's
    /// or root's (``SocketTrust``): another user could answer in the daemon's place.
    case untrusted(socket: [UInt8], SocketTrust.Refusal)

    package var description: String {
        switch self {
        case .noDaemon(let path):
            return "no quotawatch daemon is listening on \(HumanText.name(path)); "
                + "start one with 'quotawatch run ROOT', or pass --socket PATH if it listens elsewhere"
        case .permissionDenied(let path):
            return "permission denied connecting to \(HumanText.name(path)): the daemon runs as another user; "
                + "run this as that user (or root), or pass --socket PATH"
        case .timedOut(let path, let timeout):
            return "the quotawatch daemon on \(HumanText.name(path)) did not answer within "
                + "\(DurationText.seconds(timeout)); it may still be crawling its tree, so try again shortly"
        case .protocolError(let path, let detail):
            return "unexpected reply from \(HumanText.name(path)): \(detail); "
                + "is something other than a quotawatch daemon listening there? Pass --socket PATH to choose another"
        case .daemonError(let path, let message):
            return "the quotawatch daemon on \(HumanText.name(path)) answered: \(message)"
        case .pathTooLong(let path):
            return "the socket path \(HumanText.name(path)) is \(path.count) bytes, longer than the "
                + "\(UnixSocket.maximumPathLength) a Unix socket allows; pass a shorter one with --socket PATH"
        case .system(let path, let error):
            return "could not reach the quotawatch daemon on \(HumanText.name(path)): \(error)"
        case .untrusted(let socket, let refusal):
            let what = refusal.path == socket ? "" : " because of \(HumanText.name(refusal.path))"
            let remover = refusal.ownerID.map { " (as root or user \($0))" } ?? ""
            return "refusing to trust the socket \(HumanText.name(socket))\(what): \(refusal.reason), "
                + "so another user could answer in your daemon's place; remove \(HumanText.name(refusal.path))"
                + "\(remover) and start your daemon again, or pass --socket PATH in a directory only you can write"
        }
    }
}

/// The client side of the control protocol, for `quotawatch status`.
package enum ControlClient {
    /// Connects to the daemon's socket, each failure named as a client error: nobody
    /// listening, no permission, too slow, a path too long for a socket address.
    /// Every client connects here, and only to a socket ``SocketTrust`` accepts.
    static func connect(socketPath: [UInt8], timeout: Duration) throws(ControlClientError) -> FileDescriptor {
        let me = ProcessIdentity.effectiveUserID
        do {
            try SocketTrust.checkPath(socketPath, me: me)
        } catch {
            throw .untrusted(socket: socketPath, error)
        }
        let connection = try connectUnchecked(socketPath: socketPath, timeout: timeout)
        do {
            try SocketTrust.checkPeer(connection, socketPath: socketPath, me: me)
        } catch {
            connection.close()
            throw .untrusted(socket: socketPath, error)
        }
        return connection
    }

    private static func connectUnchecked(
        socketPath: [UInt8], timeout: Duration
    ) throws(ControlClientError) -> FileDescriptor {
        do {
            return try connectRetryingWhileFull(socketPath: socketPath, timeout: timeout)
        } catch .noSuchFileOrDirectory, .connectionRefused, .notDirectory {
            throw .noDaemon(path: socketPath)
        } catch .permissionDenied, .notPermitted {
            throw .permissionDenied(path: socketPath)
        } catch .resourceTemporarilyUnavailable {
            throw .timedOut(path: socketPath, timeout: timeout)
        } catch .nameTooLong {
            throw .pathTooLong(path: socketPath)
        } catch {
            throw .system(path: socketPath, error)
        }
    }

    /// Connects, trying again while the daemon's listen backlog is full (EAGAIN: a thousand
    /// clients at once), after 1 ms, then twice as long each time up to 100 ms, until `timeout`.
    private static func connectRetryingWhileFull(
        socketPath: [UInt8], timeout: Duration
    ) throws(Errno) -> FileDescriptor {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            do {
                let left = deadline - ContinuousClock.now
                return try UnixSocket.connect(to: socketPath, timeout: max(left, .milliseconds(1)))
            } catch .resourceTemporarilyUnavailable where ContinuousClock.now + pause < deadline {
                _ = try? Poller.wait(
                    [], timeoutMilliseconds: Int32(pause.components.attoseconds / 1_000_000_000_000_000))
                pause = min(pause * 2, .milliseconds(100))
            }
        }
    }

    /// Sends `request` to the daemon listening on `socketPath` and returns its reply, one JSON
    /// document without the newline that ended it. Connecting, sending and receiving must all
    /// be done within `timeout`. An error document from the daemon is thrown as
    /// ``ControlClientError/daemonError(path:message:)``.
    package static func request(
        socketPath: [UInt8], _ request: ControlRequest, timeout: Duration
    ) throws(ControlClientError) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        let connection = try connect(socketPath: socketPath, timeout: timeout)
        defer { connection.close() }

        let reply: ReceivedLine
        do {
            reply = try exchange(request, on: connection, by: deadline)
        } catch .resourceTemporarilyUnavailable {
            throw .timedOut(path: socketPath, timeout: timeout)
        } catch {
            throw .protocolError(path: socketPath, detail: "the connection failed: \(error)")
        }
        switch reply.ending {
        case .limitReached:
            throw .protocolError(
                path: socketPath, detail: "the reply is longer than \(ControlProtocol.maximumReplyBytes) bytes")
        case .endOfFile where reply.bytes.isEmpty:
            throw .protocolError(path: socketPath, detail: "the connection closed without a reply")
        case .endOfFile, .newline:
            break
        }
        switch ControlProtocol.classify(reply.bytes) {
        case .document:
            return reply.bytes
        case .error(let message):
            throw .daemonError(path: socketPath, message: message)
        case .notJSON:
            throw .protocolError(path: socketPath, detail: "the reply is not a JSON document")
        }
    }

    /// Sends the request line and receives the reply line. A timeout is EAGAIN.
    private static func exchange(
        _ request: ControlRequest, on connection: FileDescriptor, by deadline: ContinuousClock.Instant
    ) throws(Errno) -> ReceivedLine {
        // A daemon that turns a connection away answers without reading the request, so a
        // failed send is not the end: its answer may be waiting to be read.
        var sendError: Errno?
        do {
            try connection.sendAll(request.encodedLine())
            try? connection.shutdown(.writing)
        } catch .resourceTemporarilyUnavailable {
            throw .resourceTemporarilyUnavailable
        } catch {
            sendError = error
        }
        do {
            return try connection.receiveLine(maximumBytes: ControlProtocol.maximumReplyBytes, deadline: deadline)
        } catch .resourceTemporarilyUnavailable {
            throw .resourceTemporarilyUnavailable
        } catch {
            throw sendError ?? error
        }
    }
}
