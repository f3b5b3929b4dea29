import Glibc
import QuotaWatchTestSupport
import Testing

/// Directories made, filled, removed and locked while the daemon runs.
@Suite("live tallies follow directory changes")
struct DirectoryTests {
    private let root = LiveFixture.root

    @Test("mkdir -p of deep chains, one past PATH_MAX")
    func deepChains() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "base")
        try fixture.start()

        var chain = root / "deep"
        for level in 0..<60 { chain = chain / "level-\(level)" }
        try tree.makeDirectories(chain)
        try tree.writeFile(chain / "bottom", byteCount: 12_345)
        let long = try tree.makeDirectoryChain(under: root / "base", longerThan: 4096 + 600)
        try tree.writeFile(long / "deep-file", byteCount: 70_000)
        try fixture.expectLiveMatchesScan("after making the chains")

        // A second chain sharing the first's top half, with a file at every level.
        var branch = root / "deep"
        for level in 0..<30 { branch = branch / "level-\(level)" }
        for level in 0..<30 {
            branch = branch / "branch-\(level)"
            try tree.makeDirectories(branch)
            try tree.writeFile(branch / "file", byteCount: 100 * level)
        }
        try tree.writeFile(long.parent! / "beside-the-deepest", byteCount: 5_000)
        try fixture.expectLiveMatchesScan("after branching", du: true)
        try fixture.stopCleanly()
    }

    @Test("a burst of 200 directories with 20 files each, made in a tight loop")
    func burst() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "burst")
        try fixture.start()

        for directory in 0..<200 {
            // Every fourth is filled under a temporary name and renamed into place, as
            // unpacking tools do.
            let final = root / "burst" / "d\(directory)"
            let building = directory % 4 == 0 ? root / "burst" / ".tmp-d\(directory)" : final
            try tree.makeDirectory(building)
            for file in 0..<20 {
                try tree.writeFile(building / "f\(file)", byteCount: (directory * 20 + file) % 9 * 1_500)
            }
            if directory % 10 == 0 {
                try tree.makeDirectory(building / "sub")
                try tree.writeFile(building / "sub" / "nested", byteCount: 9_000)
            }
            if building != final { try tree.rename(building, to: final) }
        }
        try fixture.expectLiveMatchesScan("after the burst")
        try fixture.stopCleanly()
    }

    @Test("rm -rf of subtrees, one holding hard links from elsewhere")
    func removeSubtrees() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "keep" / "inner")
        try tree.writeFile(root / "keep" / "inner" / "kept", byteCount: 40_000)
        try tree.makeDirectories(root / "doomed" / "a" / "b" / "c")
        try tree.makeDirectories(root / "doomed" / "d")
        try tree.writeFile(root / "doomed" / "a" / "b" / "c" / "deep", byteCount: 100_000)
        try tree.writeFile(root / "doomed" / "d" / "shared", byteCount: 60_000)
        try tree.makeHardLink(root / "keep" / "link-to-shared", to: root / "doomed" / "d" / "shared")
        try tree.makeHardLink(root / "doomed" / "link-to-kept", to: root / "keep" / "inner" / "kept")
        for index in 0..<30 {
            try tree.makeDirectories(root / "wide" / "w\(index)")
            try tree.writeFile(root / "wide" / "w\(index)" / "file", byteCount: 3_000)
        }
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before removing")

        try tree.removeSubtree(root / "doomed")
        try tree.removeSubtree(root / "wide")
        let after = try fixture.expectLiveMatchesScan("after rm -rf", du: true)
        #expect(after.engine.watches == before.engine.watches - 36, "watches \(before.engine) → \(after.engine)")
        try fixture.stopCleanly()
    }

    @Test("a directory replaced by a file of the same name, and back")
    func directoryReplacedByFile() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for name in ["x", "z", "w"] {
            try tree.makeDirectories(root / name / "sub")
            try tree.writeFile(root / name / "sub" / "file", byteCount: 25_000)
        }
        try tree.writeFile(root / "y", byteCount: 7_000)
        try tree.writeFile(root / "w-file", byteCount: 45_000)
        try fixture.start()

        try tree.removeSubtree(root / "x")
        try tree.writeFile(root / "x", byteCount: 30_000)
        try tree.unlinkEntry(root / "y")
        try tree.makeDirectory(root / "y")
        try tree.writeFile(root / "y" / "inner", byteCount: 11_000)
        // Back and forth before the daemon is asked anything.
        try tree.removeSubtree(root / "z")
        try tree.writeFile(root / "z", byteCount: 1_000)
        try tree.unlinkEntry(root / "z")
        try tree.makeDirectories(root / "z" / "again")
        try tree.writeFile(root / "z" / "again" / "file", byteCount: 2_000)
        // The directory moved aside and a file renamed into its name.
        try tree.rename(root / "w", to: LiveFixture.outside / "w-old")
        try tree.rename(root / "w-file", to: root / "w")
        try fixture.expectLiveMatchesScan("after the swaps", du: true)
        try fixture.stopCleanly()
    }

    @Test(
        "directories made unreadable and readable again (daemon and scan as nobody)",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (root reads everything)")
    )
    func unreadableDirectories() throws {
        let fixture = try LiveFixture(as: .nobody)
        let tree = fixture.tree
        try tree.makeDirectories(root / "open" / "inner")
        try tree.writeFile(root / "open" / "inner" / "file", byteCount: 10_000)
        try tree.makeDirectories(root / "locked" / "inner")
        try tree.writeFile(root / "locked" / "inner" / "file", byteCount: 20_000)
        try tree.makeDirectories(root / "later" / "sub")
        try tree.writeFile(root / "later" / "sub" / "file", byteCount: 30_000)
        try tree.writeFile(root / "later" / "sub" / "private", byteCount: 15_000)
        try tree.makeHardLink(root / "open" / "link-into-later", to: root / "later" / "sub" / "file")
        try tree.setMode(root / "locked", 0o000)
        try fixture.start()

        try fixture.expectLiveMatchesScan("locked from the start", scanExitStatus: 1, watchPerDirectory: false)

        try tree.setMode(root / "later", 0o000)
        try fixture.expectLiveMatchesScan("after locking another", scanExitStatus: 1, watchPerDirectory: false)

        try tree.setMode(root / "locked", 0o755)
        try tree.makeDirectory(root / "born-locked", mode: 0o000)
        // Changes the daemon cannot see, and neither can the scan.
        try tree.appendToFile(root / "later" / "sub" / "private", byteCount: 50_000)
        try tree.writeFile(root / "later" / "unseen", byteCount: 8_000)
        try fixture.expectLiveMatchesScan(
            "after unlocking one", du: true, scanExitStatus: 1, watchPerDirectory: false)

        for path in [root / "later", root / "born-locked"] { try tree.setMode(path, 0o755) }
        try tree.writeFile(root / "born-locked" / "file", byteCount: 4_000)
        try fixture.expectLiveMatchesScan("all readable again", du: true)
        try fixture.stopCleanly()
    }
}
