import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// Every scenario runs twice: with no cached directory descriptors (every stat opens its
/// directory by path) and with a cache (a descriptor follows its directory's renames).
let handleCapacities = [0, 256]

@Suite("LiveTree: files and directories")
struct LiveTreeFileTests {
    @Test(arguments: handleCapacities)
    func createWriteTruncateAndUnlink(handles: Int) throws {
        var fs = FakeFileSystem(handleCapacity: handles)
        try fs.mkdir("docs")
        try fs.createFile("docs/old", size: 10_000)
        var h = LiveTreeHarness(fs)
        expectExact(h, "after the first crawl")

        try h.fs.createFile("docs/new", size: 5000)
        try h.fs.write("docs/new", size: 70_000)
        try h.fs.write("docs/old", size: 0)
        try h.fs.createFile(FakePath(components: [[0xff, 0xfe, 0x41]]), size: 1)
        h.deliver()
        h.flush()
        expectExact(h, "after a flush")

        try h.fs.unlink("docs/new")
        try h.fs.write("docs/old", size: 123_456)
        h.sync()
        expectExact(h, "after a sync")
        #expect(h.live.counters.rescannedDirectories == 0)
    }

    @Test(arguments: handleCapacities)
    func churnEntirelyBeforeDelivery(handles: Int) throws {
        var h = LiveTreeHarness(FakeFileSystem(handleCapacity: handles))
        try h.fs.createFile("f", size: 100)
        try h.fs.write("f", size: 9000)
        try h.fs.unlink("f")
        try h.fs.createFile("f", size: 3)
        try h.fs.createFile("gone", size: 3)
        try h.fs.unlink("gone")
        h.sync()
        expectExact(h)
        #expect(h.live.counters.rescannedDirectories == 0)
    }

    @Test func pureFileChurnNeverRescans() throws {
        var fs = FakeFileSystem()
        for directory in ["a", "a/b", "c"] as [FakePath] { try fs.mkdir(directory) }
        var h = LiveTreeHarness(fs)
        let places: [FakePath] = ["a", "a/b", "c", ""]
        for round in 0..<200 {
            let place = places[round % places.count]
            let name = place.appending(Array("f\(round % 7)".utf8))
            if h.fs.node(at: name) == nil {
                try h.fs.createFile(name, size: UInt64(round * 100))
            } else if round % 3 == 0 {
                try h.fs.unlink(name)
            } else if round % 5 == 0 {
                try? h.fs.link(name, places[(round + 1) % places.count].appending(Array("l\(round % 5)".utf8)))
            } else if round % 11 == 0 {
                try h.fs.rename(name, places[(round + 2) % places.count].appending(Array("f\(round % 7)".utf8)))
            } else {
                try h.fs.write(name, size: UInt64(round * 37))
            }
            if round % 9 == 0 { h.deliver(Int(round % 4) + 1) }
            if round % 13 == 0 { h.flush() }
        }
        h.sync()
        expectExact(h)
        #expect(h.live.counters.rescannedDirectories == 0)
    }

    @Test(arguments: handleCapacities)
    func atomicReplaceByRename(handles: Int) throws {
        var fs = FakeFileSystem(handleCapacity: handles)
        try fs.mkdir("docs")
        try fs.createFile("docs/report", size: 1000)
        try fs.link("docs/report", "docs/report.bak")
        var h = LiveTreeHarness(fs)

        try h.fs.createFile("docs/.report.tmp", size: 20_000)
        // The engine reads the create before the rename happened, and stats after it.
        h.deliver(1)
        try h.fs.rename("docs/.report.tmp", "docs/report")
        h.flush()
        h.sync()
        expectExact(h, "replacing one of two hard links")

        try h.fs.createFile("docs/.report.tmp", size: 30_000)
        try h.fs.rename("docs/.report.tmp", "docs/report")
        try h.fs.createFile("docs/.report.tmp", size: 40_000)
        try h.fs.rename("docs/.report.tmp", "docs/report")
        h.sync()
        expectExact(h, "two replacements in one batch")
        #expect(h.live.counters.rescannedDirectories == 0)
    }

    @Test(arguments: handleCapacities, [true, false])
    func mkdirChainThenRemoveTree(handles: Int, stepwise: Bool) throws {
        var h = LiveTreeHarness(FakeFileSystem(handleCapacity: handles))
        var path: FakePath = "a"
        for depth in 0..<4 {
            try h.fs.mkdir(path)
            try h.fs.createFile(path.appending(Array("f".utf8)), size: UInt64(depth * 1000))
            if stepwise {
                h.deliver()
                h.flush()
            }
            path = path.appending(Array("d\(depth)".utf8))
        }
        h.sync()
        expectExact(h, "after mkdir -p")
        #expect(h.live.counters.rescannedDirectories == 4, "each new directory is listed once")

        try h.fs.removeTree("a")
        if stepwise {
            while h.pendingEvents > 0 {
                h.deliver(1)
                h.flush()
            }
        }
        h.sync()
        expectExact(h, "after rm -rf")
        #expect(h.live.watchCount == 1)
    }

    @Test(arguments: handleCapacities)
    func directoryReplacedByFileOfTheSameName(handles: Int) throws {
        var fs = FakeFileSystem(handleCapacity: handles)
        try fs.mkdir("x")
        try fs.mkdir("x/inner")
        try fs.createFile("x/inner/f", size: 5000)
        var h = LiveTreeHarness(fs)

        try h.fs.removeTree("x")
        try h.fs.createFile("x", size: 777)
        h.sync()
        expectExact(h, "directory became a file")

        try h.fs.unlink("x")
        try h.fs.mkdir("x")
        try h.fs.createFile("x/f", size: 100)
        h.sync()
        expectExact(h, "file became a directory")

        // The create of a directory is applied only after it was replaced by a file.
        try h.fs.mkdir("y")
        try h.fs.rmdir("y")
        try h.fs.createFile("y", size: 1)
        h.deliver(1)
        h.flush()
        h.sync()
        expectExact(h, "directory create applied after the directory became a file")
    }

    @Test(arguments: handleCapacities)
    func lateAllocationIsPickedUpBySyncAndByTheTimer(handles: Int) throws {
        var h = LiveTreeHarness(FakeFileSystem(handleCapacity: handles))
        try h.fs.createFile("f", size: 10_000, allocated: 0)
        h.deliver()
        h.flush()
        try h.fs.settleAllocation("f", allocated: 12_288)
        h.sync()
        expectExact(h, "sync re-stats recently written files")

        try h.fs.write("f", size: 50_000, allocated: 4096)
        h.deliver()
        h.flush()
        try h.fs.settleAllocation("f", allocated: 53_248)
        h.now += h.live.lateRestatDelay
        h.deliver()
        h.flush()
        expectExact(h, "the late re-stat timer")
    }

    /// ext4 can add an extent-tree block when it writes a fragmented file back, up to 30 s
    /// after the write and with no event: one more re-stat after writeback catches it.
    @Test(arguments: handleCapacities)
    func allocationAfterWritebackIsPickedUpByTheSecondTimer(handles: Int) throws {
        var h = LiveTreeHarness(FakeFileSystem(handleCapacity: handles))
        try h.fs.createFile("f", size: 50_000, allocated: 53_248)
        h.deliver()
        h.flush()
        h.now += h.live.lateRestatDelay
        h.deliver()
        h.flush()
        expectExact(h, "the late re-stat")
        try h.fs.settleAllocation("f", allocated: 57_344)
        h.now += h.live.writebackRestatDelay - 1
        h.deliver()
        h.flush()
        #expect(!h.mismatches().isEmpty, "no event, so nothing re-stats the file before the writeback deadline")
        h.now += 1
        h.deliver()
        h.flush()
        expectExact(h, "the re-stat after writeback")
    }

    /// The usual way to save a file: write a temporary name, close, rename it over the real
    /// one. The late re-stat must follow the file to its new name.
    @Test(arguments: handleCapacities)
    func lateAllocationFollowsAnAtomicSave(handles: Int) throws {
        var fs = FakeFileSystem(handleCapacity: handles)
        try fs.createFile("f", size: 100)
        var h = LiveTreeHarness(fs)
        try h.fs.createFile(".f.swp", size: 10_000, allocated: 0)
        try h.fs.rename(".f.swp", "f")
        h.deliver()
        h.flush()
        try h.fs.settleAllocation("f", allocated: 12_288)
        h.sync()
        expectExact(h)
    }
}
