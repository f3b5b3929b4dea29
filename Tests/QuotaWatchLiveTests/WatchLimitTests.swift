import Glibc
import QuotaWatchTestSupport
import Testing

/// The inotify watch limit, reached for real: the daemon runs in a user namespace of its own
/// whose limit is set to 20 watches.
@Suite("live tallies past the watch limit")
struct WatchLimitTests {
    private let root = LiveFixture.root
    static let watchLimit = 20

    /// Sets the namespace's limit, then becomes the daemon (`$0` is its binary).
    static let wrapper = [
        "unshare", "--user", "--map-root-user", "sh", "-c",
        "echo \(watchLimit) > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"",
    ]

    /// Why a user namespace with its own watch limit cannot be made here, or nil.
    static let unavailableReason: String? = {
        guard ProcessRunner.findExecutable("unshare") != nil else { return "unshare (util-linux) is not installed" }
        let probe = try? ProcessRunner.run(
            "unshare",
            ["--user", "--map-root-user", "sh", "-c", "echo \(watchLimit) > /proc/sys/user/max_inotify_watches"])
        guard let probe else { return "unshare could not be run" }
        guard probe.exitStatus == 0 else {
            return "cannot make a user namespace with its own inotify watch limit: \(probe.errorText)"
        }
        return nil
    }()

    @Test(
        "degrades to polling the unwatched subtrees, says which limit to raise, stays exact",
        .enabled(if: unavailableReason == nil, "needs 'unshare --user' with a writable max_inotify_watches"))
    func watchLimitInUserNamespace() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for top in 0..<6 {
            for inner in 0..<9 {
                let directory = root / "p\(top)" / "q\(inner)"
                try tree.makeDirectories(directory)
                try tree.writeFile(directory / "file", byteCount: 1_000 * (top * 9 + inner + 1))
            }
            try tree.writeFile(root / "p\(top)" / "top-file", byteCount: 7_000)
        }
        let directoryCount = 1 + 6 + 6 * 9
        // inotify's limit: the fanotify backend has no watch per directory (and no
        // CAP_SYS_ADMIN in a user namespace).
        let daemon = try fixture.start(options: ["--backend", "inotify"], wrapper: Self.wrapper)

        let degradedEvent = try daemon.waitForEvent("degraded")
        try daemon.waitForStandardError(containing: "fs.inotify.max_user_watches")
        let needed = degradedEvent.watchesNeeded ?? 0
        #expect(needed >= directoryCount, "\(degradedEvent)")
        #expect(
            daemon.errorText.contains("\(needed)"),
            "stderr does not say how many watches are needed\n\(daemon.errorText)")

        let first = try fixture.expectLiveMatchesScan("right after start", watchPerDirectory: false)
        #expect(!first.engine.degraded.isEmpty, "\(first.engine)")
        #expect(first.engine.watches <= Self.watchLimit, "\(first.engine)")

        // Changes inside every polled subtree, and in the watched part.
        for (index, path) in first.engine.degraded.enumerated() {
            let directory = root.appending(TreePath(path))
            try tree.writeFile(directory / "new-\(index)", byteCount: 33_000)
            try tree.makeDirectories(directory / "new-directory")
            try tree.writeFile(directory / "new-directory" / "file", byteCount: 12_000)
            if try tree.exists(directory / "file") { try tree.appendToFile(directory / "file", byteCount: 50_000) }
            if try tree.exists(directory / "top-file") { try tree.unlinkEntry(directory / "top-file") }
        }
        try tree.writeFile(root / "at-the-top", byteCount: 21_000)
        let second = try fixture.expectLiveMatchesScan("after changes in polled subtrees", watchPerDirectory: false)
        #expect(!second.engine.degraded.isEmpty, "\(second.engine)")

        try tree.removeSubtree(root.appending(TreePath(first.engine.degraded[0])))
        try fixture.expectLiveMatchesScan("after removing a polled subtree", watchPerDirectory: false)
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
    }
}
