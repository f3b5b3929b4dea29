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
