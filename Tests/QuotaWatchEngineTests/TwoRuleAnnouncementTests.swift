import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import Testing

/// Every quota state change is announced in the turn that makes it, whichever rule it
/// belongs to: here a/b is under `a/*` (5 MB) and `a/b` (3 MB).
@Suite("quota states of a directory under two rules")
struct TwoRuleAnnouncementTests {
    private func fixture() throws -> PolicyHarness {
        var fs = FakeFileSystem()
        for directory in ["a", "a/b"] as [FakePath] { try fs.mkdir(directory) }
        var p = PolicyHarness(fs, config: try PolicyHarness.config([("a/*", 5_000_000), ("a/b", 3_000_000)]))
        #expect(p.start().isEmpty)
        return p
    }

    @Test("one write past both limits: both breaches in that turn")
    func bothInOneWrite() throws {
        var p = try fixture()
        try p.h.fs.createFile("a/b/f", size: 6_000_000)
        #expect(p.turn() == ["quota_breach a/b", "quota_breach a/b"])
        #expect(p.rows == ["a/b breach", "a/b breach"])
    }

    @Test("a second rule's breach while a cleanup run holds the directory for the first: in that turn")
    func secondRuleWhileHeld() throws {
        var p = try fixture()
        try p.h.fs.createFile("a/b/f", size: 4_000_000)
        #expect(p.turn() == ["quota_warning a/b", "quota_breach a/b"], "a/* at 80 %, a/b past 3 MB")
        // The breach of a/b started a run, which holds the directory until it settles.
        let directory = try #require(p.directory("a/b"))
        p.monitor.holdForCleanup(directory)
        try p.h.fs.write("a/b/f", size: 6_000_000)
        #expect(p.turn() == ["quota_breach a/b"], "a/*'s breach, now, not when the run ends")
        // The run brings it down: nothing while it holds, then ok for both once, not warning on the way.
        try p.h.fs.write("a/b/f", size: 3_500_000)
        #expect(p.turn().isEmpty)
        try p.h.fs.write("a/b/f", size: 1_000_000)
        #expect(p.turn().isEmpty)
        p.monitor.releaseAfterCleanup(directory)
        #expect(p.policyPass() == ["quota_ok a/b", "quota_ok a/b"])
    }
}
