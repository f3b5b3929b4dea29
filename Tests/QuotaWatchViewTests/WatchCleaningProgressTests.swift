import QuotaWatchCore
import QuotaWatchView
import Testing

@Suite("watch shows a cleaning in progress")
struct WatchCleaningProgressTests {
    private func progress(run: String, removed: Int, freed: UInt64, dryRun: Bool = false) -> String {
        #"{"answered":\#(removed),"cleaner":"clean","dry_run":\#(dryRun),"event":"cleanup_progress","freed":\#(freed),"#
            + #""removed":\#(removed),"root":"/r","run":"\#(run)","seconds":1.5,"trigger":"manual"}"#
    }

    private func parse(_ json: String) throws -> EventLine {
        try #require(EventLine.parse(json, receivedAt: 0, utcOffset: 0, format: .decimal))
    }

    @Test("a progress event reads as files and bytes removed so far, or would be in a dry run")
    func progressLine() throws {
        let line = try parse(progress(run: "7-1", removed: 12_000, freed: 49_152_000))
        #expect(line.kind == "cleanup_progress")
        #expect(
            line.details == "cleaning (clean, trigger manual): removed 12000, freed 49.2 MB so far, 1.50s",
            "\(line.details)")
        let dry = try parse(progress(run: "7-1", removed: 3, freed: 12_288, dryRun: true))
        #expect(dry.details.contains("would remove 3, would free 12.3 KB so far"), "\(dry.details)")
    }

    @Test("the log keeps one line per cleaner going on, updated in place, until the run's cleanup line replaces it")
    func oneLineUntilTheRunEnds() throws {
        var model = WatchModel()
        model.receive(try parse(#"{"event":"overflow","root":"/r"}"#))
        model.receive(try parse(progress(run: "7-1", removed: 1000, freed: 4_096_000)))
        model.receive(try parse(progress(run: "7-1", removed: 2000, freed: 8_192_000)))
        model.receive(try parse(progress(run: "7-2", removed: 5, freed: 20_480)))
        #expect(model.log.map(\.kind) == ["overflow", "cleanup_progress", "cleanup_progress"])
        #expect(model.log[1].details.contains("removed 2000, freed 8.2 MB so far"), "\(model.log[1].details)")
        let done =
            #"{"cleaners":[],"dry_run":false,"event":"cleanup","freed":8192000,"removed":2000,"root":"/r","#
            + #""run":"7-1","seconds":2.0,"time":"2026-12-02T05:00:00.000Z","trigger":"manual","triggers":[]}"#
        model.receive(try parse(done))
        #expect(model.log.map(\.kind) == ["overflow", "cleanup_progress", "cleanup"])
        #expect(model.log[1].progressOf == "7-2/clean")
    }
}
