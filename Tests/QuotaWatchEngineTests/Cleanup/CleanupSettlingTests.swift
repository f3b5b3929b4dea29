import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// A breached directory's state is held from its breach until its run's deletions are in the
/// tree. Before, it was let go 2 s after the run ended, deletions counted or not: on a loaded
/// machine the events came later, and `quota_warning` was announced between the breach and
/// the `quota_ok`.
@Suite("cleanup settling waits for the run's deletions, not for a clock")
struct CleanupSettlingTests {
    private func summary(removing items: [RemovedItem]) -> CleanupSummary {
        var report = CleanerReport(name: "evict")
        report.removed = items
        return CleanupSummary(
            runID: "t-1", triggers: [.breach(path: Array("Caches/a".utf8))], cleaners: [report], seconds: 0,
            dryRun: false, time: WallTime(millisecondsSinceEpoch: 0))
    }

    /// Caches/a/old in the tree, and a run for Caches/a's breach started.
    private func fixture() throws -> (LiveTreeHarness, CleanupSettling, UInt64) {
        var fs = FakeFileSystem()
        for directory in ["Caches", "Caches/a"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("Caches/a/old", size: 10_000)
        let h = LiveTreeHarness(fs)
        var settling = CleanupSettling()
        settling.started(Array("Caches/a".utf8))
        return (h, settling, try #require(h.fs.inode(at: "Caches/a/old")))
    }

    @Test("deletions still on their way hold the directory past two seconds; applied, they let it go")
    func waitsForTheEvents() throws {
        var (h, settling, inode) = try fixture()
        try h.fs.unlink("Caches/a/old")  // removed by the run; its event not delivered yet
        settling.finished(
            summary(removing: [RemovedItem(path: Array("Caches/a/old".utf8), freedBytes: 12_288, inode: inode)]),
            now: h.now)
        h.now += 2_500_000_000
        #expect(settling.takeSettled(h.live.tree, now: h.now).isEmpty, "2.5 s later, the delete not yet applied")
        h.deliverAndWait()
        #expect(settling.takeSettled(h.live.tree, now: h.now) == [Array("Caches/a".utf8)])
    }

    @Test("a name made again at once is another inode: it does not hold the directory")
    func aNameMadeAgain() throws {
        var (h, settling, inode) = try fixture()
        try h.fs.unlink("Caches/a/old")
        try h.fs.createFile("Caches/a/old", size: 1_000)
        h.deliverAndWait()
        settling.finished(
            summary(removing: [RemovedItem(path: Array("Caches/a/old".utf8), freedBytes: 12_288, inode: inode)]),
            now: h.now)
        #expect(settling.takeSettled(h.live.tree, now: h.now) == [Array("Caches/a".utf8)])
    }
}
