import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// The fanotify backend as a root user runs it: chosen by `auto` and said so, refused with
/// its reason where it cannot work, and what only it can see (a write through a hard link
/// outside the root, counted with no re-stat at sync). The suites shared with inotify run on
/// it with QUOTAWATCH_TEST_BACKEND=fanotify.
@Suite("the fanotify backend")
struct FanotifyBackendTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside
    static let notRoot: String? = geteuid() == 0 ? nil : "needs root: a filesystem mark needs CAP_SYS_ADMIN"

    private func object(_ text: some StringProtocol) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// What `auto` should pick for `path` as root: fanotify when its file system holds more
    /// inodes than inotify watches this user may hold (or does not count them), else inotify.
    private static func autoExpectation(_ path: String) throws -> String {
        var space = statvfs()
        guard statvfs(path, &space) == 0 else { throw POSIXError(.EIO) }
        let limit = try String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8)
        let watches = UInt64(limit.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let inodes = UInt64(space.f_files) - UInt64(space.f_ffree)
        return space.f_files == 0 || inodes > watches ? "fanotify" : "inotify"
    }

    @Test(
        "auto as root picks by the file system's inodes against the watch limit, and the ready event, status --json and the log say which and why",
        .enabled(if: notRoot == nil, "\(notRoot ?? "")"))
    func autoPicksByCost() throws {
        let fixture = try LiveFixture()
        let expected = try Self.autoExpectation(fixture.rootPath)
        let daemon = try fixture.start(options: ["--backend", "auto"])
        let ready = try object(try #require(daemon.events("ready").first).text)
        #expect(ready["backend"] as? String == expected, "\(ready)")
        let reason = try #require(ready["backend_reason"] as? String)
        #expect(reason.contains("max_user_watches") && reason.contains("inodes"), "\(reason)")
        let result = try daemon.statusCommand(["status", fixture.rootPath, "--socket", fixture.socketPath, "--json"])
        let engine = try #require(try object(result.outputText)["engine"] as? [String: Any])
        #expect(engine["backend"] as? String == expected, "\(engine)")
        if expected == "fanotify" {
            #expect(engine["watches"] == nil && engine["marks"] as? Int == 1, "\(engine)")
            #expect((engine["directories"] as? Int ?? 0) > 0, "\(engine)")
        } else {
            #expect(engine["marks"] == nil && (engine["watches"] as? Int ?? 0) > 0, "\(engine)")
        }
        #expect(daemon.errorText.contains("with \(expected) (auto:"), "\(daemon.errorText)")
        try fixture.stopCleanly()
    }

    @Test(
        "as an unprivileged user --backend fanotify exits 71 (the system cannot give it) naming CAP_SYS_ADMIN, and auto falls back to inotify saying why",
        .enabled(if: UnprivilegedExecution.isAvailable, "\(UnprivilegedExecution.unavailableReason ?? "")"))
    func unprivilegedUser() throws {
        let fixture = try LiveFixture(as: .nobody)
        let refused = try Daemon.launch(
            fixture.cli, root: fixture.rootPath, socket: fixture.socketPath, options: ["--backend", "fanotify"],
            as: .nobody)
        let exit = try refused.waitForExit()
        #expect(exit.exitStatus == 71, "\(exit)")
        #expect(exit.errorText.contains("--backend fanotify cannot work here"), "\(exit)")
        #expect(exit.errorText.contains("CAP_SYS_ADMIN"), "\(exit)")

        let daemon = try fixture.start(options: ["--backend", "auto"])
        let ready = try object(try #require(daemon.events("ready").first).text)
        #expect(ready["backend"] as? String == "inotify", "\(ready)")
        #expect((ready["backend_reason"] as? String)?.contains("CAP_SYS_ADMIN") == true, "\(ready)")
        try fixture.stopCleanly()
    }

    @Test("a --backend that is not one of the three is a usage error naming it")
    func badBackend() throws {
        let fixture = try LiveFixture()
        let result = try fixture.cli.run([
            "run", fixture.rootPath, "--socket", fixture.socketPath, "--backend", "kqueue",
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(
            result.errorText.contains("'kqueue'") && result.errorText.contains("auto, inotify or fanotify"), "\(result)"
        )
    }

    /// inotify cannot see these writes and re-stats every linked inode at each sync instead;
    /// the fanotify backend does no such re-stat, so only the write's own event can make
    /// this exact.
    @Test(
        "a write through a hard link outside the root is counted from its event, with no re-stat at sync",
        .enabled(if: notRoot == nil, "\(notRoot ?? "")"))
    func writeThroughOutsideLink() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(outside / "big", byteCount: 100_000)
        try tree.makeDirectories(root / "a" / "b")
        try tree.makeHardLink(root / "a" / "b" / "big", to: outside / "big")
        try tree.writeFile(outside / "single", byteCount: 4_000)
        try fixture.start(options: ["--backend", "fanotify"])
        try fixture.expectLiveMatchesScan("at start", du: true)

        try tree.appendToFile(outside / "big", byteCount: 300_000)
        try fixture.expectLiveMatchesScan("after a write through the outside name", du: true)
        // The link count change reaches the inode only: no directory event says it.
        try tree.makeHardLink(root / "a" / "single", to: outside / "single")
        try tree.unlinkEntry(outside / "big")
        try tree.appendToFile(outside / "single", byteCount: 50_000)
        try fixture.expectLiveMatchesScan("after linking in and unlinking outside", du: true)
        try tree.truncateFile(outside / "single", to: 0)
        try fixture.expectLiveMatchesScan("after truncating through the outside name", du: true)
        try fixture.stopCleanly()
    }
}
