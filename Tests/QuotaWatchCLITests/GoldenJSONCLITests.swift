import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@testable import quotawatch

/// The documented shapes only the CLI writes (`clean --json`, `history --json`, `history
/// --growth --json`), from fixed inputs, byte for byte against Tests/Fixtures/json/NAME.json;
/// the engine's shapes are in QuotaWatchEngineTests' GoldenJSONTests.
@Suite("GoldenJSON: the CLI's own shapes, byte for byte")
struct GoldenJSONCLITests {
    static let root = "/abs/root"

    /// The CLI ends each document with a newline; the fixture holds it once.
    static func expectFixture(_ output: String, _ name: String) {
        #expect(output.hasSuffix("\n"), "\(name): \(output)")
        let mismatch = GoldenFixture.mismatch(String(output.dropLast()), name)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    static var output: CleanPageOutput {
        CleanPageOutput(
            root: root, source: "daemon",
            engine: EngineReport(events: 7, rescannedDirectories: 0, overflows: 0, watches: 3, degraded: []),
            format: .decimal, nowNanoseconds: 1_764_650_000_000_000_000, filesPerKind: 10)
    }

    @Test("clean --json: the page, and a deletion")
    func cleanPage() throws {
        let cache = Array("Library/Caches/com.example/".utf8) + [0xFF] + Array("blob".utf8)
        let download = Array("tmp/CFNetworkDownload_1.tmp".utf8)
        let items = try [cache, download].enumerated().map { index, path in
            CleanItem(
                path: path, classification: try #require(CleanClassifier.classify(path)), device: 2049,
                inode: UInt64(70 + index), allocatedBytes: 8192, apparentBytes: 5000,
                modifiedNanoseconds: 1_764_000_000_000_000_000)
        }
        let offer = ManualCleanPlanner.offer(items) { $0.path == download }
        Self.expectFixture(Self.output.json(ManualCleanPlanner.page(offer.offered), held: offer.held), "clean")
        var result = CleanupResult()
        result.removed = [RemovedItem(path: cache, freedBytes: 8192)]
        result.skipped = [SkippedItem(path: download, reason: "open for writing by pid 42")]
        let deletion = CleanDeletionReport(run: "4242-5", dryRun: true, result: result)
        Self.expectFixture(Self.output.deletionJSON(deletion), "clean-deletion")
    }

    @Test("history --json and history --growth --json")
    func history() {
        let time = WallTime(millisecondsSinceEpoch: 1_764_650_000_123)
        let events = [
            HistoryEvent(
                time: time, kind: "ready", path: nil,
                line: #"{"allocated":4096,"dirs":1,"event":"ready","files":0,"root":"/abs/root","seconds":0.01}"#),
            HistoryEvent(
                time: time, kind: "quota_ok", path: #"Caches/caf\xe9"#,
                line:
                    #"{"allocated":1,"event":"quota_ok","path":"Caches/caf\\xe9","root":"/abs/root","time":"2025-12-02T04:33:20.123Z"}"#
            ),
        ]
        Self.expectFixture(HistoryOutput.jsonLines(events), "history")
        let samples = [HistorySample(time: time, path: "Caches", allocated: 8192, apparent: 5000, reason: "periodic")]
        Self.expectFixture(HistoryOutput.growthJSON(path: "Caches", samples), "history-growth")
    }

    @Test("clean-now reads the clean reply with the contract's type and describes it")
    func cleanNowDescribes() throws {
        let fixture = GoldenFixture.directory.appendingPathComponent("reply-clean.json")
        let summary = try CleanupSummaryDocument.decode(Array(try Data(contentsOf: fixture)))
        let text = CleanNowCommand.describe(summary)
        #expect(
            text == """
                  evict: removed 1, freeing 131.1 KB
                    Caches/caf\\xe9\\\\x
                    kept 1: open for writing by pid 42 (Caches/open.db)
                  feed: removed 0, freeing 0 B; error: timed out after 10.0 seconds
                cleanup 4242-3: removed 1 name(s), freeing 131.1 KB in 0.043 s

                """)
    }
}
