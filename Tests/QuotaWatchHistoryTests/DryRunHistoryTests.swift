import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchHistory

/// A dry run removes nothing, and the history must not show it as a cleanup that did.
@Suite("dry runs in the history")
struct DryRunHistoryTests {
    static func summary(dryRun: Bool) -> CleanupSummary {
        var report = CleanerReport(name: "evict")
        report.removed = [RemovedItem(path: Array("Caches/a/old".utf8), freedBytes: 4096)]
        return CleanupSummary(
            runID: "1-1", triggers: [.manual("clean")], cleaners: [report], seconds: 0.01, dryRun: dryRun,
            time: WallTime(millisecondsSinceEpoch: 1000))
    }

    static func recorded(dryRun: Bool) -> HistoryEvent? {
        let item = HistoryItem.event(.engine(.cleanup(summary(dryRun: dryRun))), WallTime(millisecondsSinceEpoch: 1000))
        guard case .event(let event) = HistoryWriter.record(item, root: "/r") else { return nil }
        return event
    }

    @Test("a dry run is recorded as cleanup_dry_run, which --event cleanup leaves out; a real run as cleanup")
    func kindOfItsOwn() throws {
        let dry = try #require(Self.recorded(dryRun: true))
        let real = try #require(Self.recorded(dryRun: false))
        #expect(dry.kind == "cleanup_dry_run")
        #expect(dry.line.contains(#""dry_run":true"#) && dry.line.contains(#""event":"cleanup""#), "\(dry.line)")
        #expect(real.kind == "cleanup")
        #expect(HistoryQuery.kinds.contains("cleanup_dry_run"))

        let directory = try TempTree(prefix: "qw-history-dry")
        let store = try HistoryStore(writingTo: Array(directory.absolutePath("history.sqlite").utf8))
        try store.append([.event(dry), .event(real)])
        #expect(try store.events(HistoryFilter(kinds: ["cleanup"])).map(\.kind) == ["cleanup"])
        #expect(try store.events(HistoryFilter(kinds: ["cleanup_dry_run"])).map(\.line) == [dry.line])
    }

    @Test("dry runs a database recorded as cleanup before are given their own kind when it is opened")
    func olderDatabase() throws {
        let directory = try TempTree(prefix: "qw-history-dry")
        let path = Array(directory.absolutePath("history.sqlite").utf8)
        let dry = try #require(Self.recorded(dryRun: true))
        let real = try #require(Self.recorded(dryRun: false))
        do {
            let store = try HistoryStore(writingTo: path)
            try store.append([.event(HistoryEvent(time: dry.time, kind: "cleanup", path: nil, line: dry.line))])
            try store.append([.event(real)])
            try store.connection.execute("PRAGMA user_version = 1")
        }
        let reopened = try HistoryStore(writingTo: path)
        #expect(try reopened.events(HistoryFilter()).map(\.kind) == ["cleanup_dry_run", "cleanup"])
    }
}
