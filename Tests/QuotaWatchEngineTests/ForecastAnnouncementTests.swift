import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@testable import QuotaWatchEngine

@Suite("forecast announcements over a live tree")
struct ForecastAnnouncementTests {
    /// The writer of #27: one loop writing 26 files of 1 MB, one every 320 ms, into a quota
    /// directory that last changed 10 s before (so its rate is still rising as it writes).
    @Test("26 × 1 MB into a quota directory: one quota_forecast, then the breach", arguments: [0, 10, 20])
    func steadyWriter(idleSeconds: Int) throws {
        var fs = FakeFileSystem()
        for directory in ["q", "q/dl"] as [FakePath] { try fs.mkdir(directory) }
        var p = PolicyHarness(fs, config: try PolicyHarness.config([("q/*", 20_000_000)]))
        _ = p.start()
        p.h.advance(milliseconds: UInt64(idleSeconds) * 1000)
        var events: [String] = []
        for chunk in 0..<26 {
            try p.h.fs.createFile(FakePath(stringLiteral: "q/dl/part\(chunk)"), size: 1_000_000)
            events += p.turn()
            p.h.advance(milliseconds: 270)
        }
        let forecasts = events.filter { $0 == "quota_forecast q/dl" }.count
        #expect(forecasts == 1, "\(events)")
        #expect(events.last == "quota_breach q/dl")
        #expect(events.firstIndex(of: "quota_forecast q/dl")! < events.firstIndex(of: "quota_breach q/dl")!)
    }

    @Test("a SIGHUP reload during the approach repeats no forecast: the book keeps each rule's forecast")
    func reloadKeepsTheApproach() throws {
        var fs = FakeFileSystem()
        for directory in ["q", "q/dl"] as [FakePath] { try fs.mkdir(directory) }
        let config = try PolicyHarness.config([("q/*", 20_000_000)])
        var p = PolicyHarness(fs, config: config)
        _ = p.start()
        var events: [String] = []
        for chunk in 0..<26 {
            try p.h.fs.createFile(FakePath(stringLiteral: "q/dl/part\(chunk)"), size: 1_000_000)
            events += p.turn()
            if chunk % 5 == 4 {
                events += p.describe(
                    p.monitor.rebuild(
                        &p.h.live.tree, config: config, keepingQuotaStates: true, now: p.h.now,
                        time: WallTime(millisecondsSinceEpoch: 0)))
            }
            p.h.advance(milliseconds: 270)
        }
        #expect(events.filter { $0 == "quota_forecast q/dl" }.count == 1, "\(events)")
        #expect(events.last == "quota_breach q/dl")
    }
}
