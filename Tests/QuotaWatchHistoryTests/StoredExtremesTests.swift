import Foundation
import QuotaWatchHistory
import QuotaWatchPolicy
import Testing

/// Times read back from the database may be any Int64 (a file anyone with access may have
/// edited, a row written by a clock set wrong): shown and compared, never trapped on.
@Suite("stored values at the ends of Int64")
struct StoredExtremesTests {
    @Test("the first and last Int64 milliseconds are shown as local times")
    func localTimes() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Paris"))
        for milliseconds in [Int64.min, Int64.min + 1, -1, 0, Int64.max] {
            let text = HistoryTime.local(WallTime(millisecondsSinceEpoch: milliseconds), zone: zone)
            #expect(!text.isEmpty)
        }
        #expect(HistoryTime.local(WallTime(millisecondsSinceEpoch: -1), zone: .gmt) == "1969-12-31T23:59:59Z")
    }

    @Test("a retention of any length gives a cutoff, clamped at the start of Int64")
    func retentionCutoff() {
        let now = WallTime(millisecondsSinceEpoch: 1_796_166_245_000)
        let forever = HistoryRetention(keep: .seconds(Int64.max), maximumBytes: 1 << 30)
        #expect(forever.ageCutoff(now: now).millisecondsSinceEpoch == 1_796_166_245_000 - Int64.max)
        let atStart = HistoryRetention(keep: .seconds(1), maximumBytes: 1 << 30)
        #expect(atStart.ageCutoff(now: WallTime(millisecondsSinceEpoch: .min)).millisecondsSinceEpoch == .min)
    }
}
