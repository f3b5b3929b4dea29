import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `--metrics-listen` written as node_exporter's `--web.listen-address` is.
@Suite("metrics listen addresses")
struct MetricsListenLiveTests {
    /// The port `run` printed on stderr.
    private func port(_ daemon: Daemon) throws -> Int {
        try daemon.waitForStandardError(containing: "/metrics\n")
        let pattern = try NSRegularExpression(pattern: #"metrics at http://[^ ]*:([0-9]+)/metrics"#)
        let text = daemon.errorText
        guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text), let port = Int(text[range])
        else { throw DaemonError("no metrics port on stderr", daemon: daemon) }
        return port
    }

    private static var hasIPv6Loopback: Bool {
        let descriptor = socket(AF_INET6, CInt(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr.__in6_u.__u6_addr8.15 = 1
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }

    @Test(":0 is every address: one port answers on 127.0.0.1 and, where the machine has it, on ::1")
    func everyAddress() throws {
        let fixture = try LiveFixture()
        let daemon = try fixture.start(options: ["--metrics-listen", ":0"])
        let port = try port(daemon)
        #expect(daemon.errorText.contains("every IPv4"), "\(daemon.errorText)")
        let overIPv4 = try HTTPGet.request(host: "127.0.0.1", port: port, path: "/metrics")
        #expect(overIPv4.status == 200 && overIPv4.text.contains("quotawatch_ready"), "\(overIPv4)")
        if Self.hasIPv6Loopback {
            #expect(daemon.errorText.contains("every IPv4 and IPv6 address"), "\(daemon.errorText)")
            let overIPv6 = try HTTPGet.request(host: "::1", port: port, path: "/metrics")
            #expect(overIPv6.status == 200 && overIPv6.text.contains("quotawatch_ready"), "\(overIPv6)")
        } else {
            print("skipped the IPv6 half: this machine has no IPv6 loopback (::1)")
        }
        try fixture.stopCleanly()
    }

    @Test("localhost:0 listens on 127.0.0.1, as node_exporter does")
    func localhost() throws {
        let fixture = try LiveFixture()
        let daemon = try fixture.start(options: ["--metrics-listen", "localhost:0"])
        let port = try port(daemon)
        #expect(daemon.errorText.contains("metrics at http://127.0.0.1:\(port)/metrics"), "\(daemon.errorText)")
        #expect(try HTTPGet.request(host: "127.0.0.1", port: port, path: "/metrics").status == 200)
        try fixture.stopCleanly()
    }
}
