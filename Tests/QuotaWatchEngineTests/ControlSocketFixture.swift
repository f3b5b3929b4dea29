import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

// MARK: ControlSocketFixture

/// One temp tree with a server's socket at run/control.sock, an engine stand-in, and the
/// outcomes of the server's connections.
final class ControlSocketFixture {
    let tree: TempTree
    let socketPath: [UInt8]
    let engine = FakeControlEngine()
    let options: ControlServer.Options
    var client: ControlSocketClient { ControlSocketClient(socketPath: socketPath) }
    private let outcomes: AsyncStream<ControlConnectionOutcome>

    init(options: ControlServer.Options = ControlServer.Options()) throws {
        tree = try TempTree(prefix: "qw-control")
        socketPath = tree.absoluteBytes("run/control.sock")
        let (stream, continuation) = AsyncStream.makeStream(of: ControlConnectionOutcome.self)
        outcomes = stream
        var options = options
        options.onConnectionFinished = { outcome in
            // Probes made by other servers are not part of any test's story.
            if outcome != .noRequest { continuation.yield(outcome) }
        }
        self.options = options
    }

    func makeServer() throws -> ControlServer {
        let engine = self.engine
        return try ControlServer(socketPath: socketPath, options: options) { request, reply in
            engine.handle(request, reply)
        }
    }

    func startServer() throws -> ControlServer {
        let server = try makeServer()
        server.start()
        return server
    }

    func request(_ request: ControlRequest, timeout: Duration = .seconds(30)) async throws -> [UInt8] {
        try await client.request(request, timeout: timeout)
    }

    /// Sends `bytes` as they are, then returns the server's reply line with its newline (or,
    /// without one, all that came before the end).
    func rawExchange(_ bytes: [UInt8]) async throws -> [UInt8] {
        let connection = try UnixSocket.connect(to: socketPath, timeout: .seconds(30))
        defer { connection.close() }
        if !bytes.isEmpty { try connection.sendAll(bytes) }
        let line = try await onThread { try connection.receiveLine(maximumBytes: 1 << 20) }
        return line.ending == .newline ? line.bytes + [UInt8(ascii: "\n")] : line.bytes
    }

    func nextOutcome() async -> ControlConnectionOutcome? {
        var iterator = outcomes.makeAsyncIterator()
        return await iterator.next()
    }
}

struct ControlSocketClient: Sendable {
    let socketPath: [UInt8]

    func request(_ request: ControlRequest, timeout: Duration = .seconds(30)) async throws -> [UInt8] {
        let path = socketPath
        return try await onThread { try ControlClient.request(socketPath: path, request, timeout: timeout) }
    }
}

/// Stands in for the engine: answers plain requests at once, and parks sync requests until
/// the test answers them.
final class FakeControlEngine: Sendable {
    private let parked: AsyncStream<ControlReply>
    private let park: AsyncStream<ControlReply>.Continuation
    private let requests = Mutex(0)

    init() {
        (parked, park) = AsyncStream.makeStream(of: ControlReply.self)
    }

    var requestCount: Int { requests.withLock { $0 } }

    func handle(_ request: ControlRequest, _ reply: ControlReply) {
        requests.withLock { $0 += 1 }
        if request.sync {
            park.yield(reply)
        } else {
            reply.send(RawReply(Array(#"{"command":"\#(request.command.name)","sync":false}"#.utf8)))
        }
    }

    func nextParkedReply() async throws -> ControlReply {
        var iterator = parked.makeAsyncIterator()
        guard let reply = await iterator.next() else { throw CancellationError() }
        return reply
    }
}

let plainStatus = ControlRequest(.status(.tree(TreeSelection())))
let syncStatus = ControlRequest(.status(.tree(TreeSelection())), sync: true)

/// A reply document given as the bytes to send.
struct RawReply: ControlReplyDocument {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func replyJSON() -> [UInt8] { bytes }
}

func lstatus(_ path: [UInt8]) throws -> stat {
    var status = stat()
    guard lstat(String(decoding: path, as: UTF8.self), &status) == 0 else { throw Errno(rawValue: errno) }
    return status
}

/// Runs blocking `body` on a thread of its own, so that it never holds one of the few threads
/// Swift concurrency shares between all tests.
func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
