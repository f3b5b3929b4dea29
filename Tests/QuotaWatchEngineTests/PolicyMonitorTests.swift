import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@testable import QuotaWatchEngine

/// Free space a test sets by hand, read by the monitor as it would read statvfs.
final class FakeDisk: @unchecked Sendable {
    var space = FileSystemSpace(totalBytes: 100_000_000_000, freeBytes: 50_000_000_000, availableBytes: 50_000_000_000)
}

/// A ``LiveTreeHarness`` with the engine's policy pass after each turn.
struct PolicyHarness {
    var h: LiveTreeHarness
    var monitor: PolicyMonitor
    let disk = FakeDisk()

    init(_ fs: FakeFileSystem, config: PolicyConfig) {
        h = LiveTreeHarness(fs)
        let disk = disk
        monitor = PolicyMonitor(config: config) { disk.space }
        h.live.logStructureChanges(monitor.hasRules)
    }

    static func config(_ quotas: [(String, UInt64)]) throws -> PolicyConfig {
        var config = PolicyConfig()
        config.quotas = try quotas.map { QuotaRule(glob: try PathGlob($0.0), limit: $0.1) }
        return config
    }

    /// The start of the engine: the whole tree placed, lines already crossed reported.
    mutating func start() -> [String] {
        describe(
            monitor.rebuild(
                &h.live.tree, keepingQuotaStates: false, now: h.now, time: WallTime(millisecondsSinceEpoch: 0)))
    }

    /// Delivers every event, lets the settle pass, and runs the policy pass.
    mutating func turn() -> [String] {
        h.deliverAndWait()
        return policyPass()
    }

    mutating func policyPass() -> [String] {
        let changes = h.live.drainStructureChanges()
        return describe(
            monitor.afterTurn(&h.live.tree, changes: changes, now: h.now, time: WallTime(millisecondsSinceEpoch: 0)))
    }

    /// "quota_breach a/x" and the like.
    func describe(_ events: [PolicyEvent]) -> [String] {
        events.map { event in
            event.path.map { "\(event.kind) \(String(decoding: $0, as: UTF8.self))" } ?? event.kind
        }
    }

    var rows: [String] {
        monitor.book.rows(level: monitor.level.level, at: PolicyMonitor.moment(h.now)).map {
            "\(String(decoding: $0.path, as: UTF8.self)) \($0.state.rawValue)"
        }
    }

    func directory(_ path: FakePath) -> DirectoryID? { h.directory(at: path) }
}

@Suite("PolicyMonitor over a live tree")
struct PolicyMonitorTests {
    /// a/{x (30 kB), y (empty)}, b/c/d, quota 20 kB on a/*.
    private func fixture() throws -> PolicyHarness {
        var fs = FakeFileSystem()
        for directory in ["a", "a/x", "a/y", "b", "b/c", "b/c/d"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("a/x/f", size: 30_000)
        return PolicyHarness(fs, config: try PolicyHarness.config([("a/*", 20_000)]))
    }

    @Test("after the first crawl only directories where a glob may match hold a state, and a full one is reported")
    func placementAtStart() throws {
        var p = try fixture()
        #expect(p.start() == ["quota_breach a/x"])
        let placed: Set<DirectoryID> = [
            p.h.live.tree.root, p.directory("a")!, p.directory("a/x")!, p.directory("a/y")!,
        ]
        #expect(Set(p.monitor.states.keys) == placed, "b's subtree costs nothing")
        #expect(p.h.live.tree.ruleSlot(of: p.directory("a/x")!) != nil)
        #expect(p.h.live.tree.ruleSlot(of: p.directory("b/c")!) == nil)
        #expect(p.rows == ["a/x breach", "a/y ok"])
        #expect(p.turn().isEmpty, "a line is reported once")
    }

    @Test("a directory created under the glob carries its quota and breaches; a delete brings it back")
    func createdLater() throws {
        var p = try fixture()
        _ = p.start()
        try p.h.fs.mkdir("a/new")
        try p.h.fs.createFile("a/new/f", size: 40_000)
        #expect(p.turn() == ["quota_breach a/new"])
        try p.h.fs.unlink("a/new/f")
        #expect(p.turn() == ["quota_ok a/new"])
        try p.h.fs.mkdir("b/new")
        try p.h.fs.createFile("b/new/f", size: 40_000)
        #expect(p.turn().isEmpty)
        #expect(p.monitor.states[p.directory("b/new")!] == nil)
    }

    @Test("a renamed quota directory follows its new name, and leaves its quota when it leaves the glob")
    func renames() throws {
        var p = try fixture()
        _ = p.start()
        try p.h.fs.rename("a/y", "a/z")
        #expect(p.turn().isEmpty)
        #expect(p.rows == ["a/x breach", "a/z ok"])
        try p.h.fs.createFile("a/z/f", size: 25_000)
        #expect(p.turn() == ["quota_breach a/z"])
        try p.h.fs.rename("a/z", "b/z")
        #expect(p.turn().isEmpty)
        #expect(p.rows == ["a/x breach"])
        #expect(p.h.live.tree.ruleSlot(of: p.directory("b/z")!) == nil)
        try p.h.fs.rename("b/c", "a/c")
        #expect(p.turn().isEmpty, "a/c is empty")
        #expect(p.rows == ["a/c ok", "a/x breach"])
        #expect(p.monitor.states[p.directory("a/c/d")!] == nil, "nothing matches below a/*")
    }

    @Test("a removed directory's id, reused for a directory elsewhere, carries nothing of it")
    func idReuse() throws {
        var p = try fixture()
        _ = p.start()
        let old = p.directory("a/x")!
        try p.h.fs.removeTree("a/x")
        try p.h.fs.mkdir("b/reused")
        try p.h.fs.createFile("b/reused/f", size: 90_000)
        #expect(p.turn().isEmpty)
        let reused = p.directory("b/reused")!
        #expect(reused == old, "the fake frees and reuses records as the tree does (else this test proves little)")
        #expect(p.h.live.tree.ruleSlot(of: reused) == nil)
        #expect(!p.monitor.book.isTracked(reused))
        #expect(p.rows == ["a/y ok"])
    }

    @Test("a level change rescales every quota and re-checks them at once")
    func levelChange() throws {
        var p = try fixture()
        try p.h.fs.createFile("a/y/f", size: 8000)
        p.h.deliverAndWait()
        _ = p.start()
        #expect(p.rows == ["a/x breach", "a/y ok"])
        p.disk.space.availableBytes = 1_000_000
        // The level's period passes: the deadline is the monitor's own.
        let deadline = try #require(p.monitor.nextDeadline)
        p.h.now = deadline
        #expect(p.policyPass() == ["level", "quota_breach a/y"], "critical scales 20 kB to 8 kB")
        p.disk.space.availableBytes = 50_000_000_000
        p.h.now = try #require(p.monitor.nextDeadline)
        #expect(p.policyPass() == ["level", "quota_ok a/y"])
    }

    @Test("a reload keeps the state of each directory and rule that persists, and applies new limits")
    func reload() throws {
        var p = try fixture()
        try p.h.fs.createFile("a/y/f", size: 8000)
        p.h.deliverAndWait()
        _ = p.start()
        var config = try PolicyHarness.config([("a/*", 20_000), ("b/*", 100_000)])
        var events = p.monitor.rebuild(
            &p.h.live.tree, config: config, keepingQuotaStates: true, now: p.h.now,
            time: WallTime(millisecondsSinceEpoch: 0))
        #expect(p.describe(events) == [], "a/x stays in breach without a second event")
        #expect(p.rows == ["a/x breach", "a/y ok", "b/c ok"])
        #expect(p.h.live.tree.ruleSlot(of: p.directory("b/c")!) != nil)
        config = try PolicyHarness.config([("a/*", 9000)])
        events = p.monitor.rebuild(
            &p.h.live.tree, config: config, keepingQuotaStates: true, now: p.h.now,
            time: WallTime(millisecondsSinceEpoch: 0))
        #expect(p.describe(events) == ["quota_breach a/y"])
        #expect(p.h.live.tree.ruleSlot(of: p.directory("b/c")!) == nil, "b/* is gone with the old config")
    }
}
