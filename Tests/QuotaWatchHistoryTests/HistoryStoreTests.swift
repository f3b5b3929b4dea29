import Foundation
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@Suite("history store: batches, queries, retention")
struct HistoryStoreTests {
    static func event(_ ms: Int64, _ kind: String, _ path: String?) -> HistoryRecord {
        let pathField = path.map { ",\"path\":\"\($0)\"" } ?? ""
        return .event(
            HistoryEvent(
                time: WallTime(millisecondsSinceEpoch: ms), kind: kind, path: path,
                line: "{\"event\":\"\(kind)\"\(pathField)}"))
    }

    @Test("a batch is read back in time order, filtered by window, kind and glob")
    func appendAndQuery() throws {
        let directory = try TempTree(prefix: "qw-history-store")
        let path = Array(directory.absolutePath("history.sqlite").utf8)
        let store = try HistoryStore(writingTo: path)
        try store.append([
            Self.event(300, "quota_ok", "Caches/a"), Self.event(100, "ready", nil),
            Self.event(200, "quota_breach", "Caches/a"), Self.event(250, "quota_breach", "Caches/b/deep"),
            .sample(
                HistorySample(
                    time: WallTime(millisecondsSinceEpoch: 150), path: "Caches/a", allocated: 8192, apparent: 10,
                    reason: "periodic")),
            .sample(
                HistorySample(
                    time: WallTime(millisecondsSinceEpoch: 210), path: "Caches/a", allocated: 9000, apparent: 20,
                    reason: "breach")),
        ])
        #expect(try store.events(HistoryFilter()).map(\.kind) == ["ready", "quota_breach", "quota_breach", "quota_ok"])
        let reader = try HistoryStore(readingFrom: path)
        let window = HistoryFilter(
            since: WallTime(millisecondsSinceEpoch: 150), until: WallTime(millisecondsSinceEpoch: 260),
            kinds: ["quota_breach"], path: try PathGlob("Caches/*"))
        #expect(try reader.events(window).map(\.path) == ["Caches/a"])
        let samples = try reader.samples(path: "Caches/a", since: nil, until: nil)
        #expect(samples.map(\.allocated) == [8192, 9000])
        #expect(samples.map(\.reason) == ["periodic", "breach"])
        #expect(try reader.sampledPaths() == ["Caches/a"])
    }

    @Test("a file that is not a history database is refused with a corrupt error")
    func garbage() throws {
        let directory = try TempTree(prefix: "qw-history-store")
        try directory.writeFile("history.sqlite", contents: Array(repeating: 0x5A, count: 8192))
        let path = Array(directory.absolutePath("history.sqlite").utf8)
        #expect(throws: SQLiteError.self) { try HistoryStore(readingFrom: path) }
        do {
            _ = try HistoryStore(writingTo: path)
            Issue.record("garbage opened as a database")
        } catch {
            #expect(error.isCorrupt, "\(error)")
        }
    }

    @Test("retention drops rows older than keep, then the oldest until the file fits")
    func retention() throws {
        let directory = try TempTree(prefix: "qw-history-store")
        let path = Array(directory.absolutePath("history.sqlite").utf8)
        let store = try HistoryStore(writingTo: path)
        let now: Int64 = 10_000_000
        var records: [HistoryRecord] = []
        for index in 0..<4000 {
            let padding = String(repeating: "x", count: 200)
            records.append(
                .event(
                    HistoryEvent(
                        time: WallTime(millisecondsSinceEpoch: now - 4000 + Int64(index)), kind: "leftover",
                        path: "tmp/\(index)", line: "{\"event\":\"leftover\",\"pad\":\"\(padding)\"}")))
        }
        records.append(Self.event(now - 3_600_001, "ready", nil))
        try store.append(records)
        let before = try store.usedBytes()
        #expect(before > 800_000)

        let ageOnly = HistoryRetention(keep: .seconds(3600), maximumBytes: 1 << 40)
        #expect(try store.applyRetention(ageOnly, now: WallTime(millisecondsSinceEpoch: now)) == 1)
        #expect(try store.events(HistoryFilter(kinds: ["ready"])).isEmpty)

        let small = HistoryRetention(keep: .seconds(3600), maximumBytes: before / 4)
        #expect(try store.applyRetention(small, now: WallTime(millisecondsSinceEpoch: now)) > 2000)
        #expect(try store.usedBytes() <= before / 4)
        let left = try store.events(HistoryFilter())
        #expect(!left.isEmpty)
        // The newest stay.
        #expect(left.last?.path == "tmp/3999")
        #expect(left.first.map { $0.path != "tmp/0" } ?? false)
    }
}
