import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("control socket")
struct ControlSocketTests {
    @Test("a status request gets the handler's document back")
    func roundTrip() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let plain = try await fixture.request(plainStatus)
        #expect(String(decoding: plain, as: UTF8.self) == #"{"command":"status","sync":false}"#)

        let client = fixture.client
        let pending = Task { try await client.request(syncStatus) }
        let parked = try await fixture.engine.nextParkedReply()
        parked.send(RawReply(Array(#"{"synced":true}"#.utf8)))
        #expect(try await pending.value == Array(#"{"synced":true}"#.utf8))
        #expect(await fixture.nextOutcome() == .replied)
    }

    @Test("the socket is mode 0600 in a directory made with mode 0700")
    func modes() throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let directory = try lstatus(fixture.tree.absoluteBytes("run"))
        #expect(directory.st_mode & S_IFMT == S_IFDIR)
        #expect(directory.st_mode & 0o7777 == 0o700)
        let socket = try lstatus(fixture.socketPath)
        #expect(socket.st_mode & S_IFMT == S_IFSOCK)
        #expect(socket.st_mode & 0o7777 == 0o600)
    }

    @Test("a second server on the same path finds the first one running", arguments: [true, false])
    func alreadyRunning(firstIsStarted: Bool) async throws {
        let fixture = try ControlSocketFixture()
        let first = try fixture.makeServer()
        defer { first.stop() }
        if firstIsStarted { first.start() }

        #expect(throws: ControlServerError.alreadyRunning(path: fixture.socketPath)) {
            try fixture.makeServer()
        }
        let error = ControlServerError.alreadyRunning(path: fixture.socketPath)
        #expect(error.description.contains(fixture.tree.rootPath))
        #expect(error.description.contains("--socket"))

        first.start()
        let reply = try await fixture.request(plainStatus)
        #expect(!reply.isEmpty, "the first server still answers")
    }

    @Test("a socket left by a crashed daemon is replaced")
    func staleSocket() async throws {
        let fixture = try ControlSocketFixture()
        try fixture.tree.makeDirectory("run", mode: 0o700)
        // Bound and closed without unlinking: what a killed daemon leaves behind.
        let crashed = try UnixSocket.listen(at: fixture.socketPath)
        crashed.close()
        #expect(try UnixSocket.kind(at: fixture.socketPath) == .socket(crashed.identity))

        let server = try fixture.startServer()
        defer { server.stop() }
        let reply = try await fixture.request(plainStatus)
        #expect(String(decoding: reply, as: UTF8.self) == #"{"command":"status","sync":false}"#)
    }

    @Test("a file that is not a socket is refused and left as it was")
    func notASocket() throws {
        let fixture = try ControlSocketFixture()
        try fixture.tree.makeDirectory("run", mode: 0o700)
        try fixture.tree.writeFile("run/control.sock", contents: Array("precious".utf8))

        #expect(throws: ControlServerError.notASocket(path: fixture.socketPath)) { try fixture.makeServer() }
        let kept = try Data(contentsOf: URL(fileURLWithPath: fixture.tree.absolutePath("run/control.sock")))
        #expect(Array(kept) == Array("precious".utf8))
        #expect(ControlServerError.notASocket(path: fixture.socketPath).description.contains("--socket"))
    }

    @Test("a client finds no daemon where there is no socket or only a stale one")
    func noDaemon() async throws {
        let fixture = try ControlSocketFixture()
        await #expect(throws: ControlClientError.noDaemon(path: fixture.socketPath)) {
            try await fixture.request(plainStatus)
        }
        try fixture.tree.makeDirectory("run", mode: 0o700)
        try UnixSocket.listen(at: fixture.socketPath).close()
        await #expect(throws: ControlClientError.noDaemon(path: fixture.socketPath)) {
            try await fixture.request(plainStatus)
        }
        let message = ControlClientError.noDaemon(path: fixture.socketPath).description
        #expect(message.contains("no quotawatch daemon is listening on \(fixture.tree.rootPath)/run/control.sock"))
        #expect(message.contains("quotawatch run"))
    }

    @Test("a client that hangs up before the reply does not take the server down")
    func clientHangsUp() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let connection = try UnixSocket.connect(to: fixture.socketPath)
        try connection.sendAll(syncStatus.encodedLine())
        let reply = try await fixture.engine.nextParkedReply()
        connection.close()
        // Large enough that a write to the closed connection cannot just vanish into a buffer.
        reply.send(RawReply(Array(repeating: UInt8(ascii: " "), count: 1 << 20) + Array("{}".utf8)))
        let outcome = await fixture.nextOutcome()
        #expect(outcome == .clientGone(Errno(rawValue: EPIPE)) || outcome == .clientGone(Errno(rawValue: ECONNRESET)))

        let after = try await fixture.request(plainStatus)
        #expect(String(decoding: after, as: UTF8.self) == #"{"command":"status","sync":false}"#)
    }

    @Test("the engine's send returns at once while the client is not reading")
    func sendDoesNotBlock() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let connection = try UnixSocket.connect(to: fixture.socketPath)
        defer { connection.close() }
        try connection.sendAll(syncStatus.encodedLine())
        let reply = try await fixture.engine.nextParkedReply()
        // Far more than a socket buffer holds: a send on this thread would block right here.
        let document = Array("[\"".utf8) + Array(repeating: UInt8(ascii: "x"), count: 8 << 20) + Array("\"]".utf8)
        reply.send(RawReply(document))

        let received = try await onThread {
            try connection.receiveLine(maximumBytes: 16 << 20)
        }
        #expect(received == ReceivedLine(bytes: document, ending: .newline))
        #expect(await fixture.nextOutcome() == .replied)
    }

    @Test("a reply with newlines in it still arrives as one document")
    func newlinesInReply() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let client = fixture.client
        let pending = Task { try await client.request(syncStatus) }
        let reply = try await fixture.engine.nextParkedReply()
        reply.send(RawReply(Array("{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}".utf8)))
        let received = try await pending.value
        let object = try JSONSerialization.jsonObject(with: Data(received)) as? [String: Any]
        #expect(object?["a"] as? Int == 1)
        #expect(!received.contains(UInt8(ascii: "\n")))
    }

    @Test("stop() removes the socket, and a client then finds no daemon")
    func stopUnlinks() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        server.stop()
        #expect(try UnixSocket.kind(at: fixture.socketPath) == .missing)
        await #expect(throws: ControlClientError.noDaemon(path: fixture.socketPath)) {
            try await fixture.request(plainStatus)
        }
        server.stop()

        let neverStarted = try fixture.makeServer()
        neverStarted.stop()
        #expect(try UnixSocket.kind(at: fixture.socketPath) == .missing)
    }

    @Test("stop() leaves alone a socket that another daemon has put at the path since")
    func stopKeepsOthersSocket() throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        try UnixSocket.unlink(fixture.socketPath)
        let other = try UnixSocket.listen(at: fixture.socketPath)
        defer { other.close() }

        server.stop()
        #expect(try UnixSocket.kind(at: fixture.socketPath) == .socket(other.identity))
    }

    @Test("stop() answers a request still waiting for the engine")
    func stopAnswersWaiting() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        let client = fixture.client
        let pending = Task { try await client.request(syncStatus) }
        let parked = try await fixture.engine.nextParkedReply()

        server.stop()
        await #expect(
            throws: ControlClientError.daemonError(path: fixture.socketPath, message: "the daemon is shutting down")
        ) {
            try await pending.value
        }
        parked.send(RawReply(Array("{}".utf8)))  // too late, and harmless
    }

    @Test("a path longer than a socket address allows is a clear error on both sides")
    func pathTooLong() async throws {
        let fixture = try ControlSocketFixture()
        let directory = try fixture.tree.makeDirectoryChain(under: .root, longerThan: 120, componentLength: 60)
        let path = fixture.tree.absoluteBytes(directory) + Array("/control.sock".utf8)

        #expect(throws: ControlServerError.pathTooLong(path: path)) {
            try ControlServer(socketPath: path) { _, _ in }
        }
        #expect(ControlServerError.pathTooLong(path: path).description.contains("--socket"))
        await #expect(throws: ControlClientError.pathTooLong(path: path)) {
            try await onThread {
                try ControlClient.request(socketPath: path, plainStatus, timeout: .seconds(5))
            }
        }
        #expect(ControlClientError.pathTooLong(path: path).description.contains("--socket"))
    }

    @Test("an unknown command is answered with an error document")
    func unknownCommand() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let raw = try await fixture.rawExchange(Array(#"{"command":"frobnicate"}"#.utf8) + [0x0A])
        #expect(
            String(decoding: raw, as: UTF8.self)
                == #"{"error":"unknown command 'frobnicate'; the commands are "#
                + ControlCommand.names.joined(separator: ", ") + #""}"# + "\n")
        #expect(fixture.engine.requestCount == 0, "the handler never sees unknown commands")
    }

    @Test("malformed, oversized and missing requests are answered with errors")
    func badRequests() async throws {
        let fixture = try ControlSocketFixture(options: ControlServer.Options(requestTimeout: .milliseconds(50)))
        let server = try fixture.startServer()
        defer { server.stop() }

        let malformed = try await fixture.rawExchange(Array("status please\n".utf8))
        #expect(ControlProtocol.errorMessage(in: Array(malformed.dropLast()))?.hasPrefix("malformed request") == true)

        let huge = try await fixture.rawExchange(Array(repeating: UInt8(ascii: " "), count: 70_000))
        #expect(ControlProtocol.errorMessage(in: Array(huge.dropLast())) == "the request is longer than 65536 bytes")

        let silent = try await fixture.rawExchange([])
        #expect(ControlProtocol.errorMessage(in: Array(silent.dropLast())) == "no request arrived within 0.05s")
        #expect(fixture.engine.requestCount == 0)
    }

    @Test("a reply the engine drops unsent is answered with an error")
    func droppedReply() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        let client = fixture.client
        let pending = Task { try await client.request(syncStatus) }
        _ = try await fixture.engine.nextParkedReply()
        await #expect(
            throws: ControlClientError.daemonError(
                path: fixture.socketPath, message: "the daemon dropped the request without answering")
        ) {
            try await pending.value
        }
    }

    @Test("connections beyond the limit are turned away, not queued")
    func connectionLimit() async throws {
        let fixture = try ControlSocketFixture(options: ControlServer.Options(maximumConnections: 1))
        let server = try fixture.startServer()
        defer { server.stop() }

        let client = fixture.client
        let first = Task { try await client.request(syncStatus) }
        let parked = try await fixture.engine.nextParkedReply()
        let busy = "the daemon is already answering 1 requests; try again shortly"
        await #expect(throws: ControlClientError.daemonError(path: fixture.socketPath, message: busy)) {
            try await fixture.request(plainStatus)
        }
        parked.send(RawReply(Array("{}".utf8)))
        #expect(try await first.value == Array("{}".utf8))
    }

    @Test("a client gives up after its timeout")
    func clientTimeout() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }

        await #expect(
            throws: ControlClientError.timedOut(path: fixture.socketPath, timeout: .milliseconds(50))
        ) {
            try await fixture.request(syncStatus, timeout: .milliseconds(50))
        }
        let parked = try await fixture.engine.nextParkedReply()
        parked.send(RawReply(Array("{}".utf8)))
        guard case .clientGone = await fixture.nextOutcome() else {
            Issue.record("the late reply should find the client gone")
            return
        }
    }
}
