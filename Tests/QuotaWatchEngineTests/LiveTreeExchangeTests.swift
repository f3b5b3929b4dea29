import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// `renameat2(RENAME_EXCHANGE)`: two rename pairs and no removal. Applied as two renames,
/// the first one's target was dropped with its watches and the subtree was lost for good.
@Suite("LiveTree: exchange renames")
struct LiveTreeExchangeTests {
    /// a/x/{f, y/g}, b/z/{h, w/}, and files a/k and b/l, all watched.
    private func fixture(handles: Int) throws -> LiveTreeHarness {
        var fs = FakeFileSystem(handleCapacity: handles)
        for directory in ["a", "a/x", "a/x/y", "b", "b/z", "b/z/w"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("a/x/f", size: 3000)
        try fs.createFile("a/x/y/g", size: 9000)
        try fs.createFile("b/z/h", size: 20_000)
        try fs.createFile("a/k", size: 7000)
        try fs.createFile("b/l", size: 11_000)
        return LiveTreeHarness(fs)
    }

    @Test("two directories, delivered at once and in every split", arguments: [Int.max, 1, 2, 3])
    func twoDirectories(batch: Int) throws {
        var h = try fixture(handles: 2)
        try h.fs.exchange("a/x", "b/z")
        while h.pendingEvents > 0 { h.deliver(batch) }
        h.flush()
        expectExact(h, "right after the events, batches of \(batch)")
        // Written into the swapped directories later: their records and watches must be theirs.
        try h.fs.createFile("a/x/new", size: 30_000)
        try h.fs.createFile("b/z/y/more", size: 4000)
        h.sync()
        expectExact(h, "after writes into both")
        #expect(h.live.counters.rescannedDirectories == 0, "an exchange lists nothing")
    }

    @Test("a directory and a file, both ways", arguments: [false, true])
    func directoryAndFile(fileFirst: Bool) throws {
        var h = try fixture(handles: 256)
        if fileFirst { try h.fs.exchange("b/l", "a/x") } else { try h.fs.exchange("a/x", "b/l") }
        h.deliver()
        h.flush()
        expectExact(h, "right after the events")
        try h.fs.createFile("b/l/y/new", size: 30_000)
        try h.fs.write("a/x", size: 50_000)
        h.sync()
        expectExact(h, "after writes into both")
    }

    @Test("two files, in one directory and across two")
    func twoFiles() throws {
        var h = try fixture(handles: 256)
        try h.fs.exchange("a/k", "b/l")
        try h.fs.exchange("a/x/f", "a/x/y/g")
        try h.fs.exchange("a/k", "a/x")
        h.sync()
        expectExact(h)
    }

    @Test("with a name outside the root, both ways")
    func withOutside() throws {
        var h = try fixture(handles: 256)
        try h.fs.mkdir("/out/d")
        try h.fs.createFile("/out/d/o", size: 40_000)
        try h.fs.exchange("a/x", "/out/d")
        h.deliverAndWait()
        expectExact(h, "a directory traded for one from outside")
        try h.fs.exchange("/out/d", "b/l")
        h.sync()
        expectExact(h, "and a file traded for it")
    }

    @Test("a rename over a file, then the newcomer renamed away, is no exchange")
    func renameOverThenAway() throws {
        var h = try fixture(handles: 256)
        try h.fs.rename("a/k", "b/l")
        try h.fs.rename("b/l", "a/k")
        h.deliver()
        h.flush()
        expectExact(h, "moved over and straight back")
        try h.fs.mkdir("b/empty")
        try h.fs.rename("a/x", "b/empty")
        try h.fs.rename("b/empty", "a/x")
        h.deliver()
        h.flush()
        expectExact(h, "a directory over an empty one and back")
    }
}
