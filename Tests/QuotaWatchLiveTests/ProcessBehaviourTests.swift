import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch run` as a process: signals, its socket, a second daemon, and its root
/// disappearing.
@Suite("the daemon as a process")
struct ProcessBehaviourTests {
    private let root = LiveFixture.root

    @Test("SIGINT and SIGTERM stop it with status 0 and remove the socket", arguments: [SIGINT, SIGTERM])
    func terminationSignal(_ signal: CInt) throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "file", byteCount: 1_000)
        let daemon = try fixture.start()
        try fixture.expectLiveMatchesScan("before the signal")
        #expect(try socketKind(fixture.socketPath) == .socket(mode: 0o600))

        let exit = try daemon.stop(signal)
        #expect(exit.exitStatus == 0, "\(exit)")
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(exit.errorText.contains(name), "stderr does not name \(name)\n\(exit)")
        #expect(try socketKind(fixture.socketPath) == .missing, "the socket is left behind")
    }

    @Test("the control socket is mode 0600, in a directory made 0700")
    func socketMode() throws {
        let fixture = try LiveFixture()
        // A socket directory the daemon makes itself.
        let socket = fixture.tree.absolutePath("made-by-daemon/control.sock")
        let daemon = try Daemon.start(fixture.cli, root: fixture.rootPath, socket: socket)
        #expect(try socketKind(socket) == .socket(mode: 0o600))
        #expect(try socketKind(fixture.tree.absolutePath("made-by-daemon")) == .directory(mode: 0o700))
        let status = try daemon.status()
        #expect(status.report.directories.count == 1)
        #expect(try daemon.stop().exitStatus == 0)
    }

    @Test("a second daemon on the same socket fails clearly with status 69, and the first keeps answering")
    func secondDaemon() throws {
        let fixture = try LiveFixture()
        try fixture.start()
        let second = try Daemon.launch(
            fixture.cli, root: fixture.rootPath, socket: fixture.socketPath,
            alone: "a start refused ends the process with the socket's status only when it serves that root alone")
        let exit = try second.waitForExit()
        #expect(exit.exitStatus == 69, "EX_UNAVAILABLE, the socket's own status: \(exit)")
        #expect(exit.errorText.contains("already"), "no clear error\n\(exit)")
        #expect(exit.errorText.contains(fixture.socketPath), "the error does not name the socket\n\(exit)")
        #expect(!exit.events.contains { $0.event == "ready" }, "\(exit)")

        try fixture.tree.writeFile(root / "after-the-second", byteCount: 5_000)
        try fixture.expectLiveMatchesScan("the first daemon, after the second failed")
        try fixture.stopCleanly()
    }

    @Test("a stale socket left by a SIGKILLed daemon is replaced")
    func staleSocket() throws {
        let fixture = try LiveFixture()
        let killed = try fixture.start()
        let exit = try killed.stop(SIGKILL)
        #expect(exit.termination == .signaled(SIGKILL), "\(exit)")
        #expect(try socketKind(fixture.socketPath) == .socket(mode: 0o600), "the killed daemon's socket should remain")

        try fixture.tree.writeFile(root / "file", byteCount: 9_000)
        try fixture.start()
        try fixture.expectLiveMatchesScan("the daemon on the replaced socket")
        try fixture.stopCleanly()
    }

    @Test("the root deleted: the daemon exits with status 1 and says so (with siblings: that root stops alone)")
    func rootDeleted() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "a" / "b")
        try fixture.tree.writeFile(root / "a" / "b" / "file", byteCount: 9_000)
        let daemon = try fixture.start()
        try fixture.expectLiveMatchesScan("before deleting the root")

        try fixture.tree.removeSubtree(root)
        let exit = try daemon.waitForRootToEnd(timeout: .seconds(10))
        #expect(exit.exitStatus == daemon.exitStatusAfterRootEnded(alone: 1), "\(exit)")
        #expect(exit.errorText.contains("deleted or moved away"), "\(exit)")
        #expect(exit.events.contains { $0.event == "root_gone" }, "\(exit)")
        #expect(try socketKind(fixture.socketPath) == .missing, "the socket is left behind")
    }

    @Test("the root moved away: the daemon exits with status 1 and says so (with siblings: that root stops alone)")
    func rootMoved() throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "file", byteCount: 9_000)
        let daemon = try fixture.start()
        try fixture.expectLiveMatchesScan("before moving the root")

        try fixture.tree.rename(root, to: LiveFixture.outside / "moved-root")
        let exit = try daemon.waitForRootToEnd(timeout: .seconds(10))
        #expect(exit.exitStatus == daemon.exitStatusAfterRootEnded(alone: 1), "\(exit)")
        #expect(exit.errorText.contains("deleted or moved away"), "\(exit)")
        #expect(exit.events.contains { $0.event == "root_gone" }, "\(exit)")
        #expect(try socketKind(fixture.socketPath) == .missing, "the socket is left behind")
    }
}

private enum EntryKind: Equatable {
    case missing
    case socket(mode: mode_t)
    case directory(mode: mode_t)
    case other(mode: mode_t)
}

private func socketKind(_ path: String) throws -> EntryKind {
    var status = stat()
    guard lstat(path, &status) == 0 else {
        if errno == ENOENT { return .missing }
        throw SystemCallError("lstat", path, errno: errno)
    }
    let permissions = status.st_mode & 0o7777
    switch status.st_mode & S_IFMT {
    case S_IFSOCK: return .socket(mode: permissions)
    case S_IFDIR: return .directory(mode: permissions)
    default: return .other(mode: status.st_mode)
    }
}
