import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@testable import QuotaWatchEngine

/// What a hook added by a reload is told: the states that stand.
@Suite("standing states after a reload")
struct StandingStateTests {
    @Test("the quota directories past a line and a level that is not normal stand; ok ones do not")
    func standingEvents() throws {
        var fs = FakeFileSystem()
        for directory in ["a", "a/x", "a/y", "a/z"] as [FakePath] { try fs.mkdir(directory) }
        try fs.createFile("a/x/f", size: 50_000)
        try fs.createFile("a/y/f", size: 30_000)
        try fs.createFile("a/z/f", size: 1_000)
        var p = PolicyHarness(fs, config: try PolicyHarness.config([("a/*", 40_000)]))
        _ = p.start()
        let time = WallTime(millisecondsSinceEpoch: 0)
        #expect(
            p.describe(p.monitor.standingEvents(p.h.live.tree, now: p.h.now, time: time)) == [
                "quota_breach a/x", "quota_warning a/y",
            ])
        p.disk.space.availableBytes = 1_000_000
        p.h.now = try #require(p.monitor.nextDeadline)
        _ = p.policyPass()
        let standing = p.monitor.standingEvents(p.h.live.tree, now: p.h.now, time: time)
        #expect(p.describe(standing).first == "level")
        #expect(standing.first?.fields(root: "/r")["to"] == .string("critical"), "\(standing)")
    }

    @Test("a hook is told the kinds it wants now and did not before; a new one every kind it wants")
    func newlyWanted() {
        func hook(_ name: String, _ events: Set<String>) -> HookSpec {
            HookSpec(name: name, command: [Array("true".utf8)], events: events)
        }
        let old = [hook("same", ["quota_breach"]), hook("widened", ["quota_breach"]), hook("all", [])]
        let new = [
            hook("same", ["quota_breach"]), hook("widened", ["quota_breach", "level"]), hook("all", []),
            hook("added", ["quota_breach", "leftover"]),
        ]
        let told = HookParticipant.newlyWanted(old: old, new: new)
        #expect(told == ["widened": ["level"], "added": ["quota_breach", "leftover"]])
        #expect(HookParticipant.newlyWanted(old: [], new: [hook("all", [])])["all"] == Set(PolicyEvent.kinds))
    }
}
