import QuotaWatchEngine
import Testing

@Suite("LiveTree driven by the engine schedule")
struct LiveTreeScheduleTests {
    /// Overflows the fake's queue with `count` new files in "a".
    private func overflow(_ h: inout LiveTreeHarness, round: Int) throws {
        h.fs.queueCapacity = 4
        for index in 0..<8 {
            try h.fs.createFile(FakePath(components: [Array("a".utf8), Array("r\(round)-\(index)".utf8)]))
        }
        h.deliver()
        h.fs.queueCapacity = .max
    }

    @Test("a second overflow within the minute waits out its backoff, then resyncs and is exact")
    func backoffOnTheTree() throws {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        var h = LiveTreeHarness(fs)

        try overflow(&h, round: 1)
        #expect(h.live.needsResync)
        h.runDueWork()
        #expect(!h.live.needsResync, "the first overflow resyncs at once")
        expectExact(h, "after the first resync")

        h.advance(milliseconds: 100)
        try overflow(&h, round: 2)
        h.runDueWork()
        #expect(h.live.needsResync, "0.1 s after a resync the next one waits for the 0.5 s backoff")
        #expect(h.schedule.wakeDeadline(h.conditions) == h.schedule.resyncNotBefore)
        h.advance(milliseconds: 399)
        h.runDueWork()
        #expect(h.live.needsResync)
        h.advance(milliseconds: 1)
        h.runDueWork()
        #expect(!h.live.needsResync)
        h.sync()
        expectExact(h, "after the backed-off resync")
        #expect(h.live.counters.overflows == 2)
    }
}
