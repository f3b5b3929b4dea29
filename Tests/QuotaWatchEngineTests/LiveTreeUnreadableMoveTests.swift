import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// Directories moved out of an unreadable directory, where the engine has no listing, then
/// exchanged: one half of each rename names a directory the tree never had, so a record can
/// end at a name that holds another directory, or nothing.
@Suite("LiveTree: exchanges with directories moved out of unreadable ones")
struct LiveTreeUnreadableMoveTests {
    /// The first pair of the exchange moved the unreadable directory's record to the name of
    /// one the tree had not listed yet; the flush found the other directory there and, trusting
    /// any directory record at a name, kept the unreadable one's record in its place for good.
    @Test(arguments: [false, true], [false, true])
    func exchangeWithADirectoryNotListedYet(selfEventsFirst: Bool, fileInside: Bool) throws {
        var fs = FakeFileSystem(handleCapacity: 256)
        try fs.mkdir("a")
        var h = LiveTreeHarness(fs)
        try h.fs.mkdir("u")
        try h.fs.chmod("u", readable: false)
        h.deliver()
        try h.fs.mkdir("u/b")
        try h.fs.rename("u/b", "e")
        if fileInside { try h.fs.createFile("e/c", size: 160_473) }
        try h.fs.exchange("u", "e")
        h.deliver()
        h.flush()
        expectExact(h, "after the exchange")
        try h.fs.mkdir("e/b")
        h.fs.selfEventsFirst = selfEventsFirst
        try h.fs.rename("u", "e/b/c")
        h.sync()
        expectExact(h)
    }

    /// Found by the in-process randomized run, seed 39 (watch limit 8, queue of 40): the flush
    /// caught up with an exchange whose second pair was still queued; that pair then moved a
    /// record back onto a name whose directory had since moved away, and a record whose own
    /// name was missing was left alone for good.
    @Test(arguments: [0, 256], [8, Int.max])
    func staleHalfOfAnExchangeAppliedAfterTheFlushCaughtUp(handles: Int, watchLimit: Int) throws {
        var fs = FakeFileSystem(handleCapacity: handles)
        for directory in ["a", "a/b", "c"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("a/f", size: 5000)
        fs.watchLimit = watchLimit
        var h = LiveTreeHarness(fs)
        h.fs.queueCapacity = 40
        try h.fs.mkdir("u")
        h.deliver()
        try h.fs.chmod("u", readable: false)
        h.deliver()
        try h.fs.mkdir("u/b")
        try h.fs.rename("u", "d")
        h.deliver(2)
        try h.fs.rename("d/b", "e")
        try h.fs.createFile("e/c", size: 160_473)
        try h.fs.exchange("d", "e")
        // Part of the exchange's events, then a flush that stats both names as they are now.
        h.deliver(6)
        h.flush()
        #expect(h.pendingEvents > 0, "the exchange's second pair is still queued")
        try h.fs.mkdir("e/b")
        h.fs.selfEventsFirst = false
        try h.fs.rename("d", "e/b/c")
        h.sync()
        expectExact(h)
    }
}
