import QuotaWatchCore
import Testing

@testable import QuotaWatchEngine

/// A written file is owed two re-stats, 3 s and 35 s later; a name that goes away before
/// them must not keep its place in the timers, or a busy download cache keeps every name it
/// ever wrote for the length of the window.
@Suite("re-stat timers follow the names that exist")
struct RestatTimerMemoryTests {
    private func name(_ number: Int) -> FakePath {
        FakePath(components: [Array("cache".utf8), Array("CFNetworkDownload_\(number).tmp".utf8)])
    }

    @Test("20 000 files written and deleted within the window leave no timers behind, and the tree exact")
    func deletedNamesLeaveTheTimers() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("cache")
        try fs.createFile("cache/kept", size: 5_000)
        var h = LiveTreeHarness(fs)
        for number in 0..<20_000 {
            try h.fs.createFile(name(number), size: 100)
            if number % 100 == 99 {
                h.deliver()
                h.flush()
            }
            try h.fs.unlink(name(number))
            if number % 1_000 == 0 { h.advance(milliseconds: 1) }
        }
        try h.fs.write("cache/kept", size: 9_000)
        h.deliver()
        h.flush()
        #expect(h.live.restats.late.count == 1, "only the file that still exists waits for its late re-stat")
        #expect(h.live.restats.queuedCount <= 2 * 1_024 + 2, "stale entries are dropped once they outnumber the live")
        h.now += h.live.lateRestatDelay
        h.runDueWork()
        #expect(h.live.restats.writeback.count <= 1, "only the kept file waits for writeback")
        h.sync()
        expectExact(h, "after the churn")
    }

    @Test("a renamed file's writeback re-stat follows it to its new name")
    func writebackFollowsARename() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        var h = LiveTreeHarness(fs)
        try h.fs.createFile("a/f", size: 50_000, allocated: 53_248)
        h.deliver()
        h.flush()
        h.now += h.live.lateRestatDelay
        h.runDueWork()
        try h.fs.rename("a/f", "a/g")
        h.deliver()
        h.flush()
        try h.fs.settleAllocation("a/g", allocated: 57_344)
        h.now += h.live.writebackRestatDelay
        h.deliver()
        h.flush()
        expectExact(h, "the re-stat after writeback, under the new name")
    }
}

@Suite("re-stats of files a crawl found inside the window")
struct CrawlFoundRestatTests {
    /// The crawl's files wait as one batch of records: each is re-stat'ed late and after
    /// writeback under the name it has by then, and one removed or parked meanwhile is left alone.
    @Test("a crawl-found file is re-stat'ed late and after writeback, renamed or not; a removed one is skipped")
    func batchFollowsTheFiles() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        for index in 0..<50 {
            try fs.createFile(
                FakePath(components: [Array("a".utf8), Array("f\(index)".utf8)]), size: 50_000, allocated: 49_152)
        }
        fs.reportsFilesAsRecentlyWritten = true
        var h = LiveTreeHarness(fs)
        #expect(h.live.restats.foundFiles.count == 50)
        try h.fs.settleAllocation("a/f1", allocated: 53_248)
        try h.fs.rename("a/f2", "a/renamed")
        try h.fs.unlink("a/f3")
        h.deliver()
        h.flush()
        try h.fs.settleAllocation("a/renamed", allocated: 53_248)
        h.now += h.live.lateRestatDelay
        h.deliver()
        h.flush()
        expectExact(h, "the late re-stat of the crawl's files")
        try h.fs.settleAllocation("a/f4", allocated: 57_344)
        try h.fs.settleAllocation("a/renamed", allocated: 57_344)
        h.now += h.live.writebackRestatDelay - 1
        h.deliver()
        #expect(!h.mismatches().isEmpty, "nothing re-stats them before the writeback deadline")
        h.now += 1
        h.deliver()
        h.flush()
        expectExact(h, "the re-stat after writeback")
        #expect(h.live.restats.foundFiles.isEmpty && h.live.nextDeadline == nil)
    }
}
