import QuotaWatchTestSupport
import Testing

/// A directory that may be read but not searched (chmod 644): its names can be listed but
/// none can be stat'ed, so du counts the directory alone. The daemon checked only that it
/// could open the directory, and kept the subtree it had.
@Suite("live tallies of directories without search permission")
struct SearchPermissionLiveTests {
    private let root = LiveFixture.root

    @Test(
        "chmod 644 drops the subtree, +x lists it again, also for one at 644 from the start (as nobody)",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (root reads everything)")
    )
    func readableButNotSearchable() throws {
        let fixture = try LiveFixture(as: .nobody)
        let tree = fixture.tree
        for top in ["dir", "born"] { try tree.makeDirectories(root / top / "sub" / "deeper") }
        // Files of "dir" would be re-stat'ed at a sync (they are new), which would find the
        // lost search permission anyway: its subtree holds directories only.
        try tree.writeFile(root / "born" / "file", byteCount: 10_000)
        try tree.writeFile(root / "born" / "sub" / "deeper" / "file", byteCount: 20_000)
        try tree.setMode(root / "born", 0o644)
        try fixture.start()
        try fixture.expectLiveMatchesScan(
            "one at 644 from the start", du: true, scanExitStatus: 1, watchPerDirectory: false)

        try tree.setMode(root / "dir", 0o644)
        try fixture.expectLiveMatchesScan("after chmod 644", du: true, scanExitStatus: 1, watchPerDirectory: false)

        try tree.setMode(root / "born", 0o755)
        try fixture.expectLiveMatchesScan(
            "the one from the start searchable again", du: true, scanExitStatus: 1, watchPerDirectory: false)

        try tree.setMode(root / "dir", 0o755)
        try tree.writeFile(root / "dir" / "sub" / "new", byteCount: 30_000)
        try fixture.expectLiveMatchesScan("searchable again and written into", du: true)

        try tree.setMode(root / "dir" / "sub", 0o444)
        try tree.setMode(root / "dir" / "sub", 0o755)
        try tree.setMode(root / "born" / "sub", 0o311)
        try fixture.expectLiveMatchesScan(
            "444 and back, then 311", du: true, scanExitStatus: 1, watchPerDirectory: false)
        try fixture.stopCleanly()
    }
}
