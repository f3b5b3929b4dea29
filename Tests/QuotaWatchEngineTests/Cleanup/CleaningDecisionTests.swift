import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// What a trigger may delete, each test a defect seen before: a trigger cleans only what it
/// concerns, a cleaner after another works from the tree the first one left, and an idle file
/// is judged from times no program can set back.
@Suite("cleaning decides only what a rule asks")
struct CleaningDecisionTests {
    static let second: Int64 = 1_000_000_000
    /// 2026-12-02, as the fake's wall clock.
    static let wallStart: Int64 = 1_796_166_245 * second

    /// Caches/warm at 36 192 B of a 40 kB quota (in warning: above its target, under its
    /// limit), Caches/full at 57 288 B of it, and a download in tmp/ that the leftover rule reports.
    private func fixture(cleaners: [CleanerSpec]) throws -> PolicyHarness {
        var fs = FakeFileSystem()
        fs.wallNow = Self.wallStart
        for directory in ["Caches", "Caches/warm", "Caches/full", "tmp"] as [FakePath] { try fs.mkdir(directory) }
        for index in 0..<7 {
            try fs.createFile(FakePath(stringLiteral: "Caches/warm/f\(index)"), size: 4_000, allocated: 4_000)
        }
        for index in 0..<9 {
            try fs.createFile(FakePath(stringLiteral: "Caches/full/f\(index)"), size: 5_000, allocated: 5_000)
        }
        try fs.createFile("tmp/CFNetworkDownload_1.tmp", size: 4_096)
        var config = try PolicyHarness.config([("Caches/*", 40_000)])
        config.leftovers.rules = [
            LeftoverRule(
                name: "downloads", paths: [try PathGlob("tmp/CFNetworkDownload_*.tmp")],
                kind: .idleFile(age: .seconds(60)))
        ]
        config.cleanup.cleaners = cleaners
        var p = PolicyHarness(fs, config: config)
        _ = p.start()
        return p
    }

    private func reportLeftovers(_ p: inout PolicyHarness, after seconds: Int64) -> [PolicyEvent] {
        let start = p.h.fs.wallNow
        let wall = Mutex(start)
        let pass = LeftoverPass<FakeFileSystem>(isOpenForWriting: { _ in false }, wallClock: { wall.withLock { $0 } })
        var events = pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now)
        p.h.now += UInt64(seconds) * UInt64(Self.second)
        p.h.fs.wallNow = start + seconds * Self.second
        wall.withLock { $0 = start + seconds * Self.second }
        events += pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now)
        return events
    }

    private func planner(_ p: PolicyHarness) -> CleanupPlanner {
        CleanupPlanner(
            settings: p.monitor.config.cleanup, monitor: p.monitor, level: p.monitor.diskLevel, now: p.h.now,
            opens: OpenLog(settings: p.monitor.config.cleanup), wallNow: p.h.fs.wallNow)
    }

    private static let evictAll = CleanerSpec.evict(name: "evict", path: nil, order: .oldestModified, target: 0.8)

    @Test("a leftover run removes its leftover and evicts nothing, not even a cache above its target")
    func leftoverRunEvictsNothing() throws {
        var p = try fixture(cleaners: [.leftovers(name: "leftovers"), Self.evictAll])
        let found = reportLeftovers(&p, after: 61)
        #expect(p.describe(found) == ["leftover tmp/CFNetworkDownload_1.tmp"])
        var planner = planner(p)
        let plan = planner.plan(
            for: .leftover(path: Array("tmp/CFNetworkDownload_1.tmp".utf8), rule: "downloads"),
            live: &p.h.live)
        #expect(plan.jobs[0].flatMap(\.candidates).map(\.path) == [Array("tmp/CFNetworkDownload_1.tmp".utf8)])
        #expect(plan.jobs[1].isEmpty, "no quota asked: Caches/warm is under its limit, Caches/full has its own breach")
    }

    @Test("a level change, the periodic run and a new app version evict only quota directories over their limit")
    func wholeTreeTriggersEvictOnlyOverLimit() throws {
        var p = try fixture(cleaners: [Self.evictAll])
        let triggers: [CleanupTrigger] = [
            .level(from: .normal, to: .warning), .periodic(.normal), .appVersion(old: "1", new: "2"),
        ]
        for trigger in triggers {
            var planner = planner(p)
            let plan = planner.plan(for: trigger, live: &p.h.live)
            #expect(
                plan.jobs[0].compactMap(\.directory?.path) == [Array("Caches/full".utf8)], "\(trigger.name)")
        }
    }

    @Test("clean-now evicts the quota directories in warning or breach, down to their targets")
    func manualRunEvictsPastTheWarningLine() throws {
        var p = try fixture(cleaners: [Self.evictAll])
        var planner = planner(p)
        let plan = planner.plan(for: .manual("now"), live: &p.h.live)
        #expect(
            Set(plan.jobs[0].compactMap(\.directory?.path)) == [Array("Caches/full".utf8), Array("Caches/warm".utf8)])
        #expect(p.rows.sorted() == ["Caches/full breach", "Caches/warm warning"])
    }

    @Test(
        "a breach planned after the level went back to normal in the same turn, its directory now within its limit, evicts nothing"
    )
    func breachThatNoLongerStands() throws {
        var p = try fixture(cleaners: [Self.evictAll])
        var planner = planner(p)
        // Caches/warm (36 192 B) broke the 28 000 B limit of the warning level; now it is 40 000 B again.
        let stale = planner.plan(
            for: .breach(path: Array("Caches/warm".utf8)), live: &p.h.live, breach: (.allocated, 28_000, "Caches/*"))
        #expect(stale.jobs[0].isEmpty)
        let standing = planner.plan(
            for: .breach(path: Array("Caches/full".utf8)), live: &p.h.live, breach: (.allocated, 28_000, "Caches/*"))
        #expect(standing.jobs[0].first?.directory?.effectiveLimit == 40_000, "the limit in force now")
    }

    @Test("a leftover written again between its report and its run is not taken")
    func leftoverWrittenSinceItsReportIsKept() throws {
        var p = try fixture(cleaners: [.leftovers(name: "leftovers")])
        _ = reportLeftovers(&p, after: 61)
        try p.h.fs.write("tmp/CFNetworkDownload_1.tmp", size: 8_192)
        _ = p.turn()
        let wall = p.h.fs.wallNow
        let pass = LeftoverPass<FakeFileSystem>(isOpenForWriting: { _ in false }, wallClock: { wall })
        let changed = [
            StructureChanges.FileName(directory: p.directory("tmp")!, name: Array("CFNetworkDownload_1.tmp".utf8))
        ]
        let gone = pass.run(&p.monitor, &p.h.live, changed: changed, now: p.h.now)
        #expect(p.describe(gone) == ["leftover_gone tmp/CFNetworkDownload_1.tmp"])
        var planner = planner(p)
        let plan = planner.plan(
            for: .leftover(path: Array("tmp/CFNetworkDownload_1.tmp".utf8), rule: "downloads"),
            live: &p.h.live)
        #expect(plan.jobs[0].isEmpty, "its report ended with the write")
    }
}
