import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@testable import QuotaWatchEngine

@Suite("Hook backlog")
struct HookBacklogTests {
    @Test("the rate limit remembers only the paths seen within about one period")
    func rateLimitMemoryIsBounded() {
        var backlog = HookBacklog(limit: 4, coalesces: false, rateLimit: .seconds(10))
        var now = Moment(sinceOrigin: .zero)
        var largest = 0
        for index in 0..<10_000 {
            // One new path a second: at most ten fall within a period.
            #expect(backlog.add(hookEvent("quota_breach", path: "p\(index)"), at: now) != .rateLimited)
            largest = max(largest, backlog.rateLimitRecordCount)
            now += .seconds(1)
        }
        #expect(largest <= 65)
        #expect(backlog.count == 4)
        #expect(backlog.dropped == 10_000 - 4)
    }

    @Test("root-wide events are rate-limited together, per kind")
    func rootWideEvents() {
        var backlog = HookBacklog(limit: 8, coalesces: false, rateLimit: .seconds(60))
        let start = Moment(sinceOrigin: .zero)
        #expect(backlog.add(hookEvent("level", path: nil), at: start) == .queued)
        #expect(backlog.add(hookEvent("level", path: nil), at: start + .seconds(30)) == .rateLimited)
        #expect(backlog.add(hookEvent("resynced", path: nil), at: start + .seconds(30)) == .queued)
        #expect(backlog.add(hookEvent("level", path: nil), at: start + .seconds(60)) == .queued)
        #expect(backlog.rateLimited == 1)
        #expect(backlog.next()?.kind == "level")
        #expect(backlog.next()?.kind == "resynced")
        #expect(backlog.next()?.kind == "level")
        #expect(backlog.next() == nil)
    }

    @Test("two rules on one directory are two events: one rule's quota_ok never replaces the other's")
    func coalescingKeepsRulesApart() {
        var backlog = HookBacklog(limit: 8, coalesces: true, rateLimit: .seconds(60))
        let now = Moment(sinceOrigin: .zero)
        for rule in ["Caches/*", "Caches/a"] {
            let event = PolicyEvent(
                .quota(
                    state: .ok, path: Array("Caches/a".utf8), used: 1, size: .allocated, limit: 9, effectiveLimit: 9,
                    rule: rule, level: .normal), time: WallTime(millisecondsSinceEpoch: 0))
            #expect(backlog.add(event.hookEvent(root: "/r"), at: now) == .queued, "\(rule)")
        }
        #expect(backlog.next()?.rule == "Caches/*")
        #expect(backlog.next()?.rule == "Caches/a")
        // The same rule's next event still coalesces with its waiting one.
        #expect(backlog.add(hookEvent("quota_ok", path: "x"), at: now) == .queued)
        #expect(backlog.add(hookEvent("quota_ok", path: "x"), at: now + .seconds(61)) == .coalesced)
    }

    @Test("a queue limit below 1 still lets one event wait")
    func limitAtLeastOne() {
        var backlog = HookBacklog(limit: 0, coalesces: true, rateLimit: nil)
        #expect(backlog.add(hookEvent("quota_breach", path: "a"), at: .now) == .queued)
        #expect(backlog.add(hookEvent("quota_breach", path: "b"), at: .now) == .queuedDroppingOldest)
        #expect(backlog.next()?.path == Array("b".utf8))
    }
}
