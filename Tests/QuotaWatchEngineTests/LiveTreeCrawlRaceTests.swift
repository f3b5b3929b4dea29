import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// Changes made while the first crawl runs, whose events are read after it. Under fanotify
/// the reader ties an event to a directory by the table as it is when the event is read
/// (``FakeFileSystem/resolvesWatchesWhenRead``), so under load every event about a
/// directory the crawl has registered since comes, although its listing already showed the
/// change; under inotify only those on directories watched when they happened do.
@Suite("LiveTree: changes during the first crawl")
struct LiveTreeCrawlRaceTests {
    /// p/dir/{f, s/g} and p/other/{h}.
    private func fixture(fanotify: Bool) throws -> FakeFileSystem {
        var fs = FakeFileSystem()
        for directory in ["p", "p/dir", "p/dir/s", "p/other"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("p/dir/f", size: 3000)
        try fs.createFile("p/dir/s/g", size: 9000)
        try fs.createFile("p/other/h", size: 5000)
        fs.discardEvents()
        fs.resolvesWatchesWhenRead = fanotify
        return fs
    }

    /// watchman's test_atomicMove: a replacement built beside p/dir, p/dir renamed away,
    /// the replacement renamed to p/dir; all before the crawl lists p.
    @Test(arguments: [false, true])
    func atomicReplacementBeforeTheListing(fanotify: Bool) throws {
        var fs = try fixture(fanotify: fanotify)
        try fs.mkdir("p/alt")
        try fs.createFile("p/alt/a", size: 7000)
        try fs.mkdir("p/alt/s2")
        try fs.createFile("p/alt/s2/b", size: 11000)
        try fs.rename("p/dir", "p/bye")
        try fs.rename("p/alt", "p/dir")
        var h = LiveTreeHarness(fs, keepingEvents: true)
        h.deliverAndWait()
        expectExact(h, "after the events, before a sync")
        h.sync()
        expectExact(h, "after a sync")
    }

    /// The same, twice over, with the replaced directory then moved into another one.
    @Test(arguments: [false, true])
    func replacementsAndMovesBeforeTheListing(fanotify: Bool) throws {
        var fs = try fixture(fanotify: fanotify)
        for round in 0..<2 {
            let alt = FakePath(stringLiteral: "p/alt\(round)")
            try fs.mkdir(alt)
            try fs.createFile(FakePath(stringLiteral: "p/alt\(round)/a"), size: 7000)
            try fs.rename("p/dir", FakePath(stringLiteral: "p/bye\(round)"))
            try fs.rename(alt, "p/dir")
        }
        try fs.rename("p/bye0", "p/other/old")
        try fs.rename("p/other", "p/dir/other")
        var h = LiveTreeHarness(fs, keepingEvents: true)
        h.deliverAndWait()
        expectExact(h, "after the events, before a sync")
        h.sync()
        expectExact(h, "after a sync")
    }
}
