import QuotaWatchEngine
import QuotaWatchSystem
import Testing

@Suite("default socket path")
struct SocketPathTests {
    private let photos = Array("/home/ann/photos".utf8)

    @Test("under XDG_RUNTIME_DIR for a user who has one")
    func runtimeDirectory() {
        let path = SocketPath.defaultPath(
            forRoot: photos, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000)
        let text = String(decoding: path, as: UTF8.self)
        #expect(text.hasPrefix("/run/user/1000/quotawatch/photos-"))
        #expect(text.hasSuffix(".sock"))
        let hash = text.dropFirst("/run/user/1000/quotawatch/photos-".count).dropLast(".sock".count)
        #expect(hash.count == 16)
        #expect(hash.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(path.count <= UnixSocket.maximumPathLength)

        let slashed = SocketPath.defaultPath(
            forRoot: photos, environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000)
        #expect(slashed == path)
    }

    @Test("in /run/quotawatch for root, even with XDG_RUNTIME_DIR set")
    func root() {
        let path = SocketPath.defaultPath(forRoot: photos, environment: ["XDG_RUNTIME_DIR": "/run/user/0"], userID: 0)
        #expect(path == Array("/run/quotawatch/".utf8) + SocketPath.socketName(forRoot: photos) + Array(".sock".utf8))
    }

    @Test(
        "in /tmp/quotawatch-UID without a usable XDG_RUNTIME_DIR",
        arguments: [[:], ["XDG_RUNTIME_DIR": ""], ["XDG_RUNTIME_DIR": "relative/dir"]])
    func fallback(environment: [String: String]) {
        let path = SocketPath.defaultPath(forRoot: photos, environment: environment, userID: 1234)
        #expect(
            path == Array("/tmp/quotawatch-1234/".utf8) + SocketPath.socketName(forRoot: photos) + Array(".sock".utf8))
    }

    @Test("the name is the sanitized last component and the FNV-1a hash of the whole path")
    func names() {
        // The published FNV-1a 64 test vector for "a".
        #expect(SocketPath.socketName(forRoot: Array("a".utf8)) == Array("a-af63dc4c8601ec8c".utf8))
        #expect(
            String(
                decoding: SocketPath.socketName(forRoot: Array("/srv/my data/caf\u{e9}".utf8) + [0xFF]), as: UTF8.self
            )
            .hasPrefix("caf___-"))
        let long = SocketPath.socketName(forRoot: Array(("/srv/" + String(repeating: "n", count: 60)).utf8))
        #expect(long.count == 40 + 1 + 16)
        #expect(SocketPath.socketName(forRoot: Array("/".utf8)).starts(with: Array("root-".utf8)))
        #expect(
            SocketPath.socketName(forRoot: Array("/data/".utf8)) == SocketPath.socketName(forRoot: Array("/data".utf8)))
        #expect(
            SocketPath.socketName(forRoot: Array("/a/data".utf8))
                != SocketPath.socketName(forRoot: Array("/b/data".utf8)))
    }
}
