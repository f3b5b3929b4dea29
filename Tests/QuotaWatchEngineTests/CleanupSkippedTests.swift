import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import Testing

/// A cleaner that keeps many names (a directory's protected files) must not make every
/// cleanup line list them all.
@Suite("skipped names in a cleanup event")
struct CleanupSkippedTests {
    /// `evict` keeping 303 protected files of a video cache and one being written.
    static var summary: CleanupSummary {
        var report = CleanerReport(name: "evict")
        report.removed = [RemovedItem(path: Array("Library/Caches/com.example.video/old.ts".utf8), freedBytes: 4096)]
        report.skipped = (1...303).map {
            SkippedItem(
                path: Array("Library/Caches/com.example.video/segments/seg-\($0 + 10_000).ts".utf8), reason: "protected"
            )
        }
        report.skipped.append(
            SkippedItem(
                path: Array("Library/Caches/com.example.video/live.ts".utf8), reason: "open for writing by pid 42"))
        return CleanupSummary(
            runID: "4242-9", triggers: [.breach(path: Array("Library/Caches/com.example.video".utf8))],
            cleaners: [report], seconds: 0.01, dryRun: false, time: WallTime(millisecondsSinceEpoch: 0))
    }

    @Test("303 protected files: counted, with five examples, in a line of a few hundred bytes")
    func countedPerReason() throws {
        let line = Self.summary.jsonLine
        print("cleanup line with 303 protected files: \(line.utf8.count) bytes")
        #expect(line.utf8.count < 1_500, "\(line.utf8.count) bytes")
        let read = try CleanupSummaryDocument.decode(Array(line.utf8))
        let skipped = try #require(read.cleaners.first?.skipped)
        #expect(skipped.keys.sorted() == ["open for writing by pid 42", "protected"])
        #expect(skipped["protected"]?.count == 303)
        #expect(
            skipped["protected"]?.examples
                == (1...5).map { "Library/Caches/com.example.video/segments/seg-\($0 + 10_000).ts" })
        let writing = try #require(skipped["open for writing by pid 42"])
        #expect(writing.count == 1 && writing.examples == ["Library/Caches/com.example.video/live.ts"])
        #expect(line.contains(#""skipped":{"open for writing by pid 42":{"count":1,"examples":["#), "\(line)")
    }

    @Test("a cleaner that kept nothing has an empty skipped object")
    func nothingKept() throws {
        let line = CleanupSummary(
            runID: "1-1", triggers: [.manual("clean-now")], cleaners: [CleanerReport(name: "leftovers")], seconds: 0,
            dryRun: true, time: WallTime(millisecondsSinceEpoch: 0)
        ).jsonLine
        #expect(line.contains(#""skipped":{}"#), "\(line)")
        #expect(try CleanupSummaryDocument.decode(Array(line.utf8)).cleaners.first?.skipped == [:])
    }
}
