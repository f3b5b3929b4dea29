import QuotaWatchTestSupport
import Testing

/// A fragmented file with an old mtime (what tar -x, cp -a and rsync -a leave), moved into
/// the root before writeback. ext4 gives it an extent-tree block when it writes it back, with
/// no event. The late re-stats were keyed off the mtime, so it got none, and even `sync`
/// followed by `status --sync` left it 4 KiB short, for good.
@Suite("live tallies after writeback")
struct WritebackLiveTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    /// A file of 24 one-byte islands, 8 KiB apart: more extents than an ext4 inode holds.
    private func makeFragmented(_ tree: TempTree, _ path: TreePath) throws {
        try tree.makeSparseFile(path, size: 24 * 8192, dataOffsets: (0..<24).map { $0 * 8192 })
        // Two years back, as an archive would have it.
        try tree.setTimes(path, seconds: 1_700_000_000)
    }

    @Test(
        "old-mtime files moved in, alone and in a directory, are counted after sync + status --sync",
        .enabled(
            if: (try? TempTree(prefix: "qw-fs-probe").fileSystemType) == TempTree.ext4Type,
            "needs ext4 (delayed allocation, extent-tree blocks)"))
    func oldMtimeMovedIn() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try fixture.start()
        try fixture.expectLiveMatchesScan("empty")

        try makeFragmented(tree, outside / "alone")
        try tree.makeDirectories(outside / "unpacked" / "sub")
        try makeFragmented(tree, outside / "unpacked" / "sub" / "archived")
        let before = try tree.allocatedBytes(outside / "alone")
        try tree.rename(outside / "alone", to: root / "alone")
        try tree.rename(outside / "unpacked", to: root / "unpacked")
        // The daemon stats both before their data is written back.
        _ = try fixture.running.syncStatus()

        tree.writeBack()
        let after = try tree.allocatedBytes(root / "alone")
        #expect(after > before, "writeback added no block here (\(before) → \(after) B); nothing to check")
        try fixture.expectLiveMatchesScan("after sync(2) and status --sync", du: true)
        try fixture.stopCleanly()
    }
}
