import Foundation
import Glibc
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// A thousand clients at once: they wait in the listen backlog, and a client told EAGAIN at
/// connect (the backlog full) tries again.
@Suite("control socket backlog")
struct ControlBacklogTests {
    @Test("a thousand connections wait in the backlog of a socket nobody accepts on yet")
    func thousandWaitInTheBacklog() throws {
        let tree = try TempTree(prefix: "qw-backlog")
        let path = tree.absolutePath("control.sock")
        let listener = try UnixSocket.listen(at: Array(path.utf8))
        defer { listener.descriptor.close() }
        let cap =
            (try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 4096
        let wanted = min(1000, cap + 1)
        var descriptors: [CInt] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var refused = 0
        for _ in 0..<wanted {
            let descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
            try #require(descriptor >= 0)
            descriptors.append(descriptor)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected != 0 { refused += 1 }
        }
        #expect(refused == 0, "\(refused) of \(wanted) connections were refused (net.core.somaxconn is \(cap))")
    }

    @Test("a client told EAGAIN at connect tries again, and is answered")
    func clientRetriesAFullBacklog() async throws {
        let fixture = try ControlSocketFixture()
        let server = try fixture.startServer()
        defer { server.stop() }
        let faults = FaultPlan()
        faults.fail(.connect, with: .resourceTemporarilyUnavailable, times: 3)
        let path = fixture.socketPath
        let reply = try await onThread {
            try faults.arm { () throws(ControlClientError) in
                try ControlClient.request(socketPath: path, plainStatus, timeout: .seconds(10))
            }
        }
        #expect(!reply.isEmpty)
        #expect(faults.calls(.connect).count == 4, "\(faults.calls(.connect))")
    }
}
