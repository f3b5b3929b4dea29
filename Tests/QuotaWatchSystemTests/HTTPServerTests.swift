import Glibc
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("TCP addresses and the HTTP server")
struct HTTPServerTests {
    @Test(
        "numeric addresses with a port parse",
        arguments: [
            ("127.0.0.1:9187", TCPAddress.Family.ipv4, "127.0.0.1", 9187), ("[::1]:0", .ipv6, "::1", 0),
            ("0.0.0.0:65535", .ipv4, "0.0.0.0", 65535), ("[::]:80", .ipv6, "::", 80),
        ] as [(String, TCPAddress.Family, String, UInt16)])
    func parses(text: String, family: TCPAddress.Family, host: String, port: UInt16) throws {
        let address = try TCPAddress(parsing: text)
        #expect(address.family == family)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == text)
        #expect(!address.isEveryAddress, "only :PORT is every address; [::] and 0.0.0.0 are one family's")
    }

    @Test(
        "as node_exporter reads --web.listen-address: :PORT is every address, localhost is 127.0.0.1",
        arguments: [
            (":9187", true, "[::]:9187"), (":0", true, "[::]:0"), ("localhost:9187", false, "127.0.0.1:9187"),
            ("LocalHost:80", false, "127.0.0.1:80"),
        ])
    func nodeExporterSpellings(text: String, isEveryAddress: Bool, shown: String) throws {
        let address = try TCPAddress(parsing: text)
        #expect(address.isEveryAddress == isEveryAddress)
        #expect(address.description == shown)
    }

    @Test("every address (:0) takes a free port and answers over IPv4 and, where the machine has it, IPv6 loopback")
    func everyAddress() throws {
        let listener = try TCPListener.listen(on: try TCPAddress(parsing: ":0"))
        #expect(listener.address.port != 0 && listener.address.isEveryAddress)
        let server = try HTTPServer(listener: listener, path: "/metrics", contentType: "text/plain") {
            Array("all\n".utf8)
        }
        defer { server.stop() }
        let port = Int(server.address.port)
        #expect(try HTTPGet.request(host: "127.0.0.1", port: port, path: "/metrics").text == "all\n")
        guard server.address.family == .ipv6 else {
            print("skipped the IPv6 half: this machine has no IPv6, so every address is 0.0.0.0")
            return
        }
        guard let loopback = try? TCPListener.listen(on: try TCPAddress(parsing: "[::1]:0")) else {
            print("skipped the IPv6 half: this machine has no IPv6 loopback")
            return
        }
        loopback.descriptor.close()
        #expect(try HTTPGet.request(host: "::1", port: port, path: "/metrics").text == "all\n")
    }

    @Test(
        "a bad address is refused with a message that names it and the fix",
        arguments: [
            ("example.com:9187", "other names are not resolved"), ("127.0.0.1", "has no port"),
            ("9187", "or :PORT for every address"), (":", "the port '' is not a number"),
            ("*:9187", "write :9187 for every address"), (":http", "not a number"),
            ("127.0.0.1:65536", "not a number from 0 to 65535"), ("127.0.0.1:http", "not a number"),
            ("::1:9187", "in brackets"), ("[::1]9187", "[IPV6]:PORT"), ("[127.0.0.1]:80", "IPv6 address"),
            ("256.1.1.1:80", "IPv4"), ("127.0.0.1:-1", "not a number"),
        ])
    func refuses(text: String, expected: String) {
        #expect {
            try TCPAddress(parsing: text)
        } throws: { error in
            let message = "\(error)"
            return message.contains("'\(text)'") && message.contains(expected)
        }
    }

    @Test("port 0 gets a free port; GET and HEAD of the page answer, other paths 404, other methods 405")
    func serves() throws {
        let calls = Atomic<Int>(0)
        let listener = try TCPListener.listen(on: try TCPAddress(parsing: "127.0.0.1:0"))
        #expect(listener.address.port != 0)
        let server = try HTTPServer(listener: listener, path: "/metrics", contentType: "text/plain; version=0.0.4") {
            calls.add(1, ordering: .relaxed)
            return Array("quotawatch_up 1\n".utf8)
        }
        defer { server.stop() }
        let port = Int(server.address.port)

        let page = try HTTPGet.request(port: port, path: "/metrics")
        #expect(page.status == 200, "\(page)")
        #expect(page.text == "quotawatch_up 1\n")
        #expect(page.headers["content-type"] == "text/plain; version=0.0.4")

        let head = try HTTPGet.request("HEAD", port: port, path: "/metrics")
        #expect(head.status == 200 && head.body.isEmpty, "\(head)")
        #expect(calls.load(ordering: .relaxed) == 2)

        let missing = try HTTPGet.request(port: port, path: "/")
        #expect(missing.status == 404, "\(missing)")
        let post = try HTTPGet.request("POST", port: port, path: "/metrics")
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD", "\(post)")
        #expect(calls.load(ordering: .relaxed) == 2, "neither the 404 nor the 405 asked for the page")
    }

    @Test("IPv6 loopback serves too, where the machine has IPv6")
    func servesIPv6() throws {
        let address = try TCPAddress(parsing: "[::1]:0")
        let listener: TCPListener
        do {
            listener = try TCPListener.listen(on: address)
        } catch .addressNotAvailable, .addressFamilyNotSupported {
            print("skipped: this machine has no IPv6 loopback")
            return
        }
        let server = try HTTPServer(listener: listener, path: "/metrics", contentType: "text/plain") {
            Array("v6\n".utf8)
        }
        defer { server.stop() }
        let page = try HTTPGet.request(host: "::1", port: Int(server.address.port), path: "/metrics")
        #expect(page.text == "v6\n")
    }

    @Test("a port in use is EADDRINUSE; stop closes the socket so the port can be bound again")
    func portInUseAndStop() throws {
        let first = try TCPListener.listen(on: try TCPAddress(parsing: "127.0.0.1:0"))
        let server = try HTTPServer(listener: first, path: "/metrics", contentType: "text/plain") { [] }
        let taken = try TCPAddress(parsing: "127.0.0.1:\(first.address.port)")
        #expect(throws: Errno.addressInUse) { try TCPListener.listen(on: taken) }
        server.stop()
        let again = try TCPListener.listen(on: taken)
        again.descriptor.close()
    }
}
