import QuotaWatchHistory
import QuotaWatchPolicy
import Testing

@Suite("history queries and retention rules")
struct HistoryQueryTests {
    @Test("no filter reads every event in time order")
    func everything() {
        let query = HistoryQuery.events(HistoryFilter())
        #expect(query.sql == "SELECT time_ms, kind, path, line FROM events ORDER BY time_ms, id")
        #expect(query.parameters.isEmpty)
    }

    @Test("window, kinds and a path glob become conditions with bound parameters")
    func everyCondition() throws {
        let filter = HistoryFilter(
            since: WallTime(millisecondsSinceEpoch: 10), until: WallTime(millisecondsSinceEpoch: 20),
            kinds: ["quota_breach", "deletion"], path: try PathGlob("Caches/*"))
        let query = HistoryQuery.events(filter)
        #expect(
            query.sql
                == "SELECT time_ms, kind, path, line FROM events WHERE time_ms >= ? AND time_ms <= ? "
                + "AND kind IN (?, ?) AND path IS NOT NULL ORDER BY time_ms, id")
        #expect(query.parameters == [.integer(10), .integer(20), .text("quota_breach"), .text("deletion")])
    }

    @Test("the path glob is QuotaWatch's: * stays within a component, ** crosses them")
    func pathGlob() throws {
        let one = HistoryFilter(path: try PathGlob("Caches/*"))
        #expect(one.admits(path: "Caches/a"))
        #expect(!one.admits(path: "Caches/a/f1"))
        #expect(!one.admits(path: nil))
        let deep = HistoryFilter(path: try PathGlob("Caches/**"))
        #expect(deep.admits(path: "Caches/a/f1"))
        #expect(HistoryFilter().admits(path: nil))
        let escaped = HistoryFilter(path: try PathGlob(bytes: Array("tmp/caf".utf8) + [0xE9]))
        #expect(escaped.admits(path: "tmp/caf\\xe9"))
    }

    @Test("growth reads one directory's samples in the window")
    func samples() {
        let query = HistoryQuery.samples(path: "Caches/a", since: WallTime(millisecondsSinceEpoch: 5), until: nil)
        #expect(
            query.sql
                == "SELECT time_ms, allocated, apparent, reason FROM samples WHERE path = ? AND time_ms >= ? "
                + "ORDER BY time_ms, id")
        #expect(query.parameters == [.text("Caches/a"), .integer(5)])
    }

    @Test("an unknown kind gets the closest known one")
    func suggestions() {
        #expect(HistoryQuery.suggestion(for: "breach") == "quota_breach")
        #expect(HistoryQuery.suggestion(for: "quota_breech") == "quota_breach")
        #expect(HistoryQuery.suggestion(for: "deletions") == "deletion")
        #expect(HistoryQuery.suggestion(for: "zzzzzzzz") == nil)
        #expect(HistoryQuery.kinds.contains("cleanup") && HistoryQuery.kinds.contains("hook_failed"))
    }

    @Test("age: rows older than keep go")
    func ageCutoff() {
        let retention = HistoryRetention(keep: .seconds(3600), maximumBytes: 1000)
        #expect(
            retention.ageCutoff(now: WallTime(millisecondsSinceEpoch: 10_000_000)).millisecondsSinceEpoch == 6_400_000)
        let fractional = HistoryRetention(keep: .milliseconds(1500), maximumBytes: 1000)
        #expect(fractional.ageCutoff(now: WallTime(millisecondsSinceEpoch: 2000)).millisecondsSinceEpoch == 500)
    }

    @Test("size: nothing within the limit, else down to 90 % of it")
    func sizeShare() {
        let retention = HistoryRetention(keep: .seconds(1), maximumBytes: 1000)
        #expect(retention.shareToDrop(usedBytes: 0) == 0)
        #expect(retention.shareToDrop(usedBytes: 1000) == 0)
        #expect(abs(retention.shareToDrop(usedBytes: 2000) - 0.55) < 1e-9)
        #expect(abs(retention.shareToDrop(usedBytes: 1001) - 101.0 / 1001) < 1e-9)
        #expect(HistoryRetention.rowsToDrop(share: 0, rowCount: 100) == 0)
        #expect(HistoryRetention.rowsToDrop(share: 0.001, rowCount: 100) == 1)
        #expect(HistoryRetention.rowsToDrop(share: 0.55, rowCount: 100) == 55)
        #expect(HistoryRetention.rowsToDrop(share: 1, rowCount: 7) == 7)
        #expect(HistoryRetention.rowsToDrop(share: 0.5, rowCount: 0) == 0)
    }
}
