import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The client side of `{"command":"events"}`: a connection that stays open and yields the
/// daemon's event lines as they come (`quotawatch watch` attached to a daemon).
///
/// ``nextLine()`` blocks on one thread; ``close()`` from another wakes it to return nil.
package final class ControlEventStream: Sendable {
    private let connection: FileDescriptor
    private let buffer = LineBuffer()
    /// The daemon's first line, `{"event":"subscribed","capacity":N}`: events from here on
    /// reach this stream.
    package let greeting: [UInt8]
    /// The newest events the daemon remembered from before the subscription, oldest first, when
    /// asked for; ``nextLine()`` goes on from the first event after them.
    package let recentLines: [[UInt8]]

    /// Connects and subscribes, asking for up to `recent` of the events that came before;
    /// throws as ``ControlClient/request(socketPath:_:timeout:)`` does when nothing answers or
    /// the daemon refuses (a daemon older than `recent` refuses it as an unknown field).
    package init(socketPath: [UInt8], timeout: Duration, recent: Int = 0) throws(ControlClientError) {
        let connection = try ControlClient.connect(socketPath: socketPath, timeout: timeout)
        self.connection = connection
        do {
            try connection.setReceiveTimeout(timeout)
            // The write side stays open: the daemon takes a closed one for a client gone.
            try connection.sendAll(ControlRequest(.events(recent: recent)).encodedLine())
            guard let first = Self.readLine(connection, buffer) else {
                throw ControlClientError.protocolError(path: socketPath, detail: "the connection closed at once")
            }
            if let message = ControlProtocol.errorMessage(in: first) {
                throw ControlClientError.daemonError(path: socketPath, message: message)
            }
            guard String(decoding: first, as: UTF8.self).contains(#""event":"subscribed""#) else {
                throw ControlClientError.protocolError(
                    path: socketPath, detail: "the daemon does not stream events (an older quotawatch?)")
            }
            // The remembered events come right after the greeting, in the same write.
            var remembered: [[UInt8]] = []
            for _ in 0..<Self.recentCount(in: first) {
                guard let line = Self.readLine(connection, buffer) else {
                    throw ControlClientError.protocolError(
                        path: socketPath, detail: "the connection closed within the events that came before")
                }
                remembered.append(line)
            }
            try connection.setReceiveTimeout(.zero)
            greeting = first
            recentLines = remembered
        } catch let error as ControlClientError {
            connection.close()
            throw error
        } catch {
            connection.close()
            throw .system(path: socketPath, (error as? Errno) ?? .invalidArgument)
        }
    }

    /// How many remembered events follow a greeting: its `recent` field, 0 without one.
    static func recentCount(in greeting: [UInt8]) -> Int {
        guard let event = try? ContractJSON.decode(ContractEvent.self, from: greeting),
            case .subscribed(_, _, let recent?) = event.payload
        else { return 0 }
        return Int(clamping: max(0, recent))
    }

    /// The next event line without its newline; nil when the daemon closed the stream (it
    /// stopped) or ``close()`` was called.
    package func nextLine() -> [UInt8]? { Self.readLine(connection, buffer) }

    private static func readLine(_ connection: FileDescriptor, _ buffer: LineBuffer) -> [UInt8]? {
        while true {
            if let line = buffer.takeLine() { return line }
            guard let bytes = try? connection.receiveSome(maximumBytes: 64 * 1024), !bytes.isEmpty else {
                return nil
            }
            buffer.append(bytes)
        }
    }

    /// Ends the stream: a thread in ``nextLine()`` returns nil. Call ``release()`` after it has.
    package func close() { try? connection.shutdown(.both) }

    /// Closes the descriptor once no thread reads it.
    package func release() { connection.close() }
}

/// Bytes received and not yet returned as lines. Only the reading thread touches it; the
/// lock is what lets the stream be Sendable for ``ControlEventStream/close()``.
private final class LineBuffer: Sendable {
    private let pending = Mutex<[UInt8]>([])

    func append(_ bytes: [UInt8]) { pending.withLock { $0 += bytes } }

    func takeLine() -> [UInt8]? {
        pending.withLock { pending in
            guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = Array(pending[..<newline])
            pending.removeFirst(newline + 1)
            return line
        }
    }
}
