import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// A directory listed at its new name before its rename's events came (the tree ahead of its
/// events) gave the tree two records of one inode: the known one at the old name and a copy at
/// the new. The `moved_to` then landed on the copy, which, not being empty, was kept displaced
/// as a possible exchange's first half; the directory's next rename took the copy away as the
/// exchange's second half and left the real record at a name that no longer exists, counted
/// twice until the next sync looked at that place again: so the tree is checked before a sync.
///
/// A watched directory's copy is merged at its listing (inotify hands back the known watch), so
/// the two records come from a directory over the watch limit: its copy gets no watch either.
@Suite("LiveTree: a directory listed at its new name before its rename came")
struct LiveTreeCopyOfNewcomerTests {
    /// `a/{f, s/g}` over the watch limit (only the root is watched), then `mkdir b` and `a`
    /// renamed over `b`; the create is applied (listing `b`, a copy of `a`), then `b` is renamed
    /// to `c`. The first rename's pair comes with the second one's (the copy is claimed by the
    /// second `moved_from`) or in a batch of its own (the copy is settled at the batch's end).
    @Test(arguments: [false, true])
    func renamedOverAFreshLeafThenRenamedAgain(firstPairInABatchOfItsOwn: Bool) throws {
        var fs = FakeFileSystem(handleCapacity: 256)
        for directory in ["a", "a/s"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("a/f", size: 30_000)
        try fs.createFile("a/s/g", size: 9000)
        fs.watchLimit = 1
        var h = LiveTreeHarness(fs)
        #expect(h.live.degradedDirectories.count == 1, "a is polled, not watched")
        let inode = try #require(h.fs.inode(at: "a"))

        try h.fs.mkdir("b")
        try h.fs.rename("a", "b")
        #expect(h.pendingEvents == 3, "create b, moved_from a, moved_to b")
        h.deliver(1)
        #expect(records(of: inode, in: h) == 2, "b was listed ahead of the rename: a copy of a")
        if firstPairInABatchOfItsOwn {
            h.deliver(2)
            h.flush()
            // The batch is over: the copy was renamed over by its own inode, no exchange.
            #expect(records(of: inode, in: h) == 1, "one record once the first rename is applied")
            expectExact(h, "right after the first rename's events")
        }
        try h.fs.rename("b", "c")
        h.deliverAndWait()
        #expect(records(of: inode, in: h) == 1, "one record for the directory's inode")
        #expect(h.directory(at: "c").map { h.live.tree.inode(of: $0) } == inode, "the directory is at its name")
        #expect(h.directory(at: "b") == nil, "no record is left at the name it left")
        expectExact(h, "once the events are applied and the move window has passed")

        try h.fs.createFile("c/s/more", size: 50_000)
        h.sync()
        #expect(records(of: inode, in: h) == 1, "one record after a sync")
        expectExact(h, "after a write into it and a sync")
    }

    private func records(of inode: UInt64, in h: LiveTreeHarness) -> Int {
        let tree = h.live.tree
        return tree.subtree(of: tree.root).filter { tree.inode(of: $0) == inode }.count
    }
}
