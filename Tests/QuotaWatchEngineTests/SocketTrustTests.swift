import Foundation
import Glibc
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// The checks a client makes before it believes a control socket, and the daemon's own
/// check of a socket directory it finds, on real files (chown needs root for the owner cases).
@Suite("whose socket it is")
struct SocketTrustTests {
    private static let stranger = UserIdentity(uid: 4_242_424, gid: 4_242_424)
    private static var isRoot: Bool { geteuid() == 0 }

    @Test("the directories checked are every one from / (or .) down to the socket's")
    func directories() {
        #expect(
            SocketTrust.directories(holding: Array("/a/b/c.sock".utf8)).map { String(decoding: $0, as: UTF8.self) }
                == ["/", "/a", "/a/b"])
        #expect(
            SocketTrust.directories(holding: Array("d/c.sock".utf8)).map { String(decoding: $0, as: UTF8.self) }
                == [".", "./d"])
    }

    @Test("a directory others may write to is refused unless sticky; a symlink socket is refused")
    func modes() throws {
        let tree = try TempTree(prefix: "qw-trust")
        let me = geteuid()
        try tree.makeDirectory("open")
        try tree.setMode("open", 0o777)
        #expect(throws: SocketTrust.Refusal.self) {
            try SocketTrust.checkPath(tree.absoluteBytes("open/x.sock"), me: me)
        }
        try tree.setMode("open", 0o1777)
        try SocketTrust.checkPath(tree.absoluteBytes("open/x.sock"), me: me)
        try tree.makeDirectory("mine", mode: 0o700)
        try tree.makeSymlink("mine/x.sock", target: "/tmp/elsewhere.sock")
        #expect(throws: SocketTrust.Refusal.self) {
            try SocketTrust.checkPath(tree.absoluteBytes("mine/x.sock"), me: me)
        }
    }

    @Test(
        "a directory or socket of another user is refused, naming the owner",
        .enabled(if: isRoot, "needs root to give a file to another user"))
    func owners() throws {
        let tree = try TempTree(prefix: "qw-trust")
        try tree.makeDirectory("theirs", mode: 0o755)
        try tree.setOwner("theirs", Self.stranger)
        do {
            try SocketTrust.checkPath(tree.absoluteBytes("theirs/x.sock"), me: 0)
            Issue.record("a directory of user \(Self.stranger.uid) was trusted")
        } catch {
            #expect(error.ownerID == Self.stranger.uid)
            #expect(error.path == tree.absoluteBytes("theirs"))
        }
        try tree.makeDirectory("mine", mode: 0o700)
        let listener = try UnixSocket.listen(at: tree.absoluteBytes("mine/x.sock"))
        defer { listener.close() }
        try tree.setOwner("mine/x.sock", Self.stranger)
        do {
            try SocketTrust.checkPath(tree.absoluteBytes("mine/x.sock"), me: 0)
            Issue.record("a socket of user \(Self.stranger.uid) was trusted")
        } catch {
            #expect(error.ownerID == Self.stranger.uid)
        }
    }

    @Test("the daemon refuses a socket directory it finds writable by others")
    func daemonRefusesOpenDirectory() throws {
        let tree = try TempTree(prefix: "qw-trust")
        try tree.makeDirectory("run")
        try tree.setMode("run", 0o777)
        let path = tree.absoluteBytes("run/control.sock")
        do {
            let server = try ControlServer(socketPath: path) { _, _ in }
            server.stop()
            Issue.record("the daemon listened in a directory of mode 0777")
        } catch {
            guard case .unsafeDirectory(let refused, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(refused == tree.absoluteBytes("run"))
            #expect(error.description.contains("mode 0777"), "\(error)")
        }
    }
}
