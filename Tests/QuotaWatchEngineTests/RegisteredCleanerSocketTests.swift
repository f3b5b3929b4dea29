import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// A registered cleaner's connection in the control server alone: a context the cleaner
/// never reads does not hold the runner or the loop; the connection is dropped after the send
/// timeout, which unregisters the cleaner and ends the call waiting for it.
@Suite("registered cleaners on the control socket")
struct RegisteredCleanerSocketTests {
    @Test("a cleaner that never reads is dropped after the send timeout, unregistered, and its call ends")
    func neverReads() throws {
        let tree = try TempTree(prefix: "qw-registered")
        let socketPath = tree.absoluteBytes("run/control.sock")
        var options = ControlServer.Options(sendTimeout: .milliseconds(300))
        options.onConnectionFinished = { _ in }
        let server = try ControlServer(socketPath: socketPath, options: options) { _, reply in
            reply.fail("no engine in this test")
        }
        server.start()
        defer { server.stop() }
        let connection = try UnixSocket.connect(to: socketPath, timeout: .seconds(30))
        defer { connection.close() }
        try connection.sendAll(
            ControlRequest(.registerCleaner(RegisterCleanerRequest(name: "deaf", paths: [Array("Caches/deaf".utf8)])))
                .encodedLine())
        let greeting = try connection.receiveLine(maximumBytes: 4096)
        #expect(String(decoding: greeting.bytes, as: UTF8.self).contains(#""event":"registered""#))
        let registration = try #require(server.registeredCleaners.current.first)

        // A context far larger than the socket's buffers, which the cleaner never reads.
        let answer = server.registeredCleaners.exchange(
            id: registration.id, deadline: .now + .seconds(60), cancellation: Cancellation()
        ) { _ in
            [UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20) + [0x0A]
        }
        #expect(answer == .failed("the connection of 'deaf' closed before it replied; it is unregistered"))
        #expect(server.registeredCleaners.current.isEmpty)
        // The server answers others meanwhile and after.
        #expect(throws: ControlClientError.daemonError(path: socketPath, message: "no engine in this test")) {
            try ControlClient.request(socketPath: socketPath, ControlRequest(.status(.quotas)), timeout: .seconds(10))
        }
    }
}
