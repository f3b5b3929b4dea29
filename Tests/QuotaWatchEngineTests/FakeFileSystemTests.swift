import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// The fake must queue what Linux queues, or the LiveTree tests prove nothing.
@Suite("FakeFileSystem")
struct FakeFileSystemTests {
    /// A fake whose root (and every directory in it) is watched, with the set-up's events dropped.
    private func watched(_ setUp: (inout FakeFileSystem) throws(FakeError) -> Void) throws -> FakeFileSystem {
        var fs = FakeFileSystem()
        try setUp(&fs)
        _ = fs.crawlRoot()
        fs.discardEvents()
        return fs
    }

    private func watch(of path: FakePath, in fs: FakeFileSystem) -> Int32 { fs.watchByInode[fs.inode(at: path)!]! }

    @Test func createWriteAndDeleteReachTheParentOnly() throws {
        var fs = try watched { fs throws(FakeError) in try fs.mkdir("d") }
        let d = watch(of: "d", in: fs)
        try fs.createFile("d/f", size: 10)
        try fs.write("d/f", size: 0)
        try fs.mkdir("d/sub")
        try fs.unlink("d/f")
        #expect(
            fs.takeEvents() == [
                InotifyEvent(watch: d, mask: .create, name: Array("f".utf8)),
                InotifyEvent(watch: d, mask: .modify, name: Array("f".utf8)),
                InotifyEvent(watch: d, mask: .closeWrite, name: Array("f".utf8)),
                InotifyEvent(watch: d, mask: .modify, name: Array("f".utf8)),
                InotifyEvent(watch: d, mask: .closeWrite, name: Array("f".utf8)),
                InotifyEvent(watch: d, mask: [.create, .isDirectory], name: Array("sub".utf8)),
                InotifyEvent(watch: d, mask: .delete, name: Array("f".utf8)),
            ])
    }

    @Test func identicalConsecutiveEventsMerge() throws {
        var fs = try watched { fs throws(FakeError) in try fs.createFile("f") }
        try fs.write("f", size: 1)
        try fs.write("f", size: 2)
        #expect(fs.takeEvents().map(\.mask) == [.modify, .closeWrite, .modify, .closeWrite])
        try fs.settleAllocation("f", allocated: 0)
        #expect(fs.queue.isEmpty)
    }

    @Test func renamesPairByCookieAndCrossingTheRootLeavesOneHalf() throws {
        var fs = try watched { fs throws(FakeError) in
            try fs.mkdir("a")
            try fs.mkdir("b")
            try fs.mkdir("/out/x")
        }
        let (root, a, b) = (watch(of: "", in: fs), watch(of: "a", in: fs), watch(of: "b", in: fs))
        try fs.rename("a", "b/a")
        let within = fs.takeEvents()
        #expect(within.map(\.watch) == [root, b, a])
        #expect(
            within.map(\.mask) == [[.movedFrom, .isDirectory], [.movedTo, .isDirectory], [.moveSelf, .isDirectory]])
        #expect(within[0].cookie == within[1].cookie && within[0].cookie != 0)
        try fs.rename("b/a", "/out/a")
        #expect(fs.takeEvents().map(\.mask) == [[.movedFrom, .isDirectory], [.moveSelf, .isDirectory]])
        try fs.rename("/out/x", "x")
        #expect(fs.takeEvents().map(\.mask) == [[.movedTo, .isDirectory]])
    }

    @Test(arguments: [true, false])
    func removedDirectoriesReportThemselvesAndLoseTheirWatch(selfEventsFirst: Bool) throws {
        var fs = try watched { fs throws(FakeError) in try fs.mkdir("d") }
        fs.selfEventsFirst = selfEventsFirst
        let (root, d) = (watch(of: "", in: fs), watch(of: "d", in: fs))
        try fs.rmdir("d")
        let ownEvents = [
            InotifyEvent(watch: d, mask: [.deleteSelf, .isDirectory]), InotifyEvent(watch: d, mask: .ignored),
        ]
        let parentEvent = [InotifyEvent(watch: root, mask: [.delete, .isDirectory], name: Array("d".utf8))]
        #expect(fs.takeEvents() == (selfEventsFirst ? ownEvents + parentEvent : parentEvent + ownEvents))
        #expect(fs.inodeByWatch[d] == nil)
    }

    @Test func renameRules() throws {
        var fs = try watched { fs throws(FakeError) in
            try fs.mkdir("a")
            try fs.mkdir("a/full")
            try fs.createFile("a/full/f")
            try fs.mkdir("empty")
            try fs.createFile("f")
            try fs.link("f", "g")
        }
        #expect(throws: FakeError.invalidMove) { try fs.rename("a", "a/full/a") }
        #expect(throws: FakeError.notEmpty) { try fs.rename("empty", "a/full") }
        #expect(throws: FakeError.isDirectory) { try fs.rename("f", "empty") }
        #expect(throws: FakeError.notDirectory) { try fs.rename("empty", "f") }
        try fs.rename("f", "g")
        #expect(fs.queue.isEmpty && fs.node(at: "f") != nil, "two names of one inode: rename does nothing")
        let empty = watch(of: "empty", in: fs)
        try fs.rename("a", "empty")
        #expect(
            fs.takeEvents().suffix(3) == [
                InotifyEvent(watch: empty, mask: [.attrib, .isDirectory]),
                InotifyEvent(watch: empty, mask: [.deleteSelf, .isDirectory]),
                InotifyEvent(watch: empty, mask: .ignored),
            ])
    }

    @Test func aFullQueueEndsInOneOverflow() throws {
        var fs = try watched { _ throws(FakeError) in }
        fs.queueCapacity = 3
        for index in 0..<5 { try fs.createFile(FakePath(components: [Array("f\(index)".utf8)])) }
        let events = fs.takeEvents()
        #expect(events.count == 4)
        #expect(events.last == InotifyEvent(watch: -1, mask: .queueOverflow))
    }

    @Test func watchesArePerInodeAndLimited() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        try fs.mkdir("b")
        fs.watchLimit = 2
        let first = fs.crawlRoot()!.1
        #expect(first.watches.count == 2 && first.unwatched.count == 1)
        let second = fs.crawlRoot()!.1
        #expect(second.watches.map(\.watch) == first.watches.map(\.watch))
    }

    @Test func duCountsEachInodeOncePerSubtreeAndUnreadableDirectoriesAlone() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        try fs.mkdir("a/s")
        try fs.createFile("a/f", size: 5000)
        try fs.link("a/f", "a/s/g")
        try fs.link("a/f", "h")
        try fs.mkdir("locked")
        try fs.createFile("locked/hidden", size: 100)
        try fs.chmod("locked", readable: false)
        let totals = Dictionary(uniqueKeysWithValues: fs.duTotals().map { ($0.path.description, $0.tally) })
        let oneEntry = FakeFileSystem.directorySize(entries: 1)
        #expect(
            totals["a/s"]
                == Tally(usage: Usage(allocated: oneEntry + 8192, apparent: oneEntry + 5000), files: 1, dirs: 0))
        #expect(totals["a"]?.files == 2 && totals["a"]?.allocated == 2 * oneEntry + 8192)
        #expect(totals[""]?.files == 3 && totals[""]?.dirs == 3)
        #expect(totals["locked"] == Tally(usage: Usage(allocated: oneEntry, apparent: oneEntry), files: 0, dirs: 0))
    }
}
