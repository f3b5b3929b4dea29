import QuotaWatchCore
import QuotaWatchPolicy
import Testing

/// Decisions on files whose times sit at the ends of the range (`touch -d @-9223372037`
/// reads as Int64.min nanoseconds, `@9223372037` as Int64.max), and on sizes and rates no real
/// file has: each is defined, none traps.
@Suite("policy decisions at the ends of the range")
struct ExtremeTimeTests {
    private let now: Int64 = 1_796_166_245_000_000_000

    @Test("a file from before 1677 is old, one from after 2262 is not, for every age")
    func olderThan() {
        for age: Duration in [.zero, .seconds(1), .seconds(Int64.max)] {
            #expect(
                LeftoverDecisions.isOlder(
                    modifiedNanoseconds: .min, changedNanoseconds: .min, than: age, nowNanoseconds: now)
                    == (age < .seconds(Int64.max)))
            #expect(
                !LeftoverDecisions.isOlder(
                    modifiedNanoseconds: .max, changedNanoseconds: .max, than: age, nowNanoseconds: now))
        }
        let ancient = CleanupCandidate(
            path: Array("a".utf8), device: 1, inode: 1, allocatedBytes: 4096, apparentBytes: 1,
            modifiedNanoseconds: .min)
        let future = CleanupCandidate(
            path: Array("b".utf8), device: 1, inode: 2, allocatedBytes: 4096, apparentBytes: 1,
            modifiedNanoseconds: .max)
        let picked = EvictionSelection.olderThan([future, ancient], age: .seconds(60), nowNanoseconds: now)
        #expect(picked.map(\.path) == [Array("a".utf8)])
        #expect(EvictionSelection.olderThan([future, ancient], age: .seconds(Int64.max), nowNanoseconds: .min).isEmpty)
    }

    @Test("clean's age filter and ages in seconds hold at both ends")
    func cleanAges() throws {
        let path = Array("tmp/x.tmp".utf8)
        let status = FileStatus(
            device: 1, inode: 3, kind: .regular, linkCount: 1, apparentBytes: 1, allocatedBytes: 4096,
            modifiedNanoseconds: .min)
        let item = try #require(CleanItem(path: path, status: status))
        #expect(item.ageSeconds(nowNanoseconds: .max) == Int64.max / 1_000_000_000)
        var selection = try CleanSelection.parse(
            categories: [Array("tmp".utf8)], kinds: [], paths: [], olderThan: Array("1d".utf8), largerThan: nil)
        #expect(selection.selects(item, nowNanoseconds: now))
        var future = item
        future.modifiedNanoseconds = .max
        #expect(!selection.selects(future, nowNanoseconds: now))
        #expect(future.ageSeconds(nowNanoseconds: .min) == 0)
        selection.olderThan = .seconds(Int64.max)
        #expect(!selection.selects(future, nowNanoseconds: now))
    }

    @Test("totals of sparse files saturate at UInt64.max, as du's do")
    func cleanTotals() throws {
        let items = try (0..<3).map { index in
            try #require(
                CleanItem(
                    path: Array("tmp/s\(index)".utf8),
                    status: FileStatus(
                        device: 1, inode: UInt64(10 + index), kind: .regular, linkCount: 1,
                        apparentBytes: UInt64(Int64.max), allocatedBytes: 0)))
        }
        #expect(CleanTotals(items).apparentBytes == .max)
    }

    @Test("event times at the ends of Int64 are written, not trapped on")
    func wallTimes() {
        #expect(WallTime(millisecondsSinceEpoch: .min).iso8601.hasSuffix("Z"))
        #expect(WallTime(millisecondsSinceEpoch: .max).iso8601 == "292278994-08-17T07:12:55.807Z")
        #expect(WallTime(millisecondsSinceEpoch: -1).iso8601 == "1969-12-31T23:59:59.999Z")
    }

    @Test("a forecast with an absurd rate (a sparse file of 8 EiB in a millisecond) is written clamped")
    func forecastFields() {
        let event = PolicyEvent(
            .forecast(path: Array("Caches/a".utf8), secondsToBreach: .infinity, bytesPerSecond: 9e21, rule: "Caches/*"),
            time: WallTime(millisecondsSinceEpoch: 0))
        #expect(
            event.jsonLine(root: "/r").contains("\"bytes_per_second\":9223372036854775807"),
            "\(event.jsonLine(root: "/r"))")
        #expect(
            event.jsonLine(root: "/r").contains("\"seconds_to_breach\":9223372036854775807"),
            "\(event.jsonLine(root: "/r"))")
        let nan = PolicyEvent(
            .forecast(
                path: Array("Caches/a".utf8), secondsToBreach: .nan, bytesPerSecond: -.infinity, rule: "Caches/*"),
            time: WallTime(millisecondsSinceEpoch: 0))
        #expect(
            nan.jsonLine(root: "/r").contains("\"bytes_per_second\":-9223372036854775808"),
            "\(nan.jsonLine(root: "/r"))")
    }
}
