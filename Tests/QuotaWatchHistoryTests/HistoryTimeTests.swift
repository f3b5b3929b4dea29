import Foundation
import QuotaWatchHistory
import QuotaWatchPolicy
import Testing

@Suite("history times: spans before now, ISO timestamps, local display")
struct HistoryTimeTests {
    /// 2026-12-01T10:00:00Z.
    let now = WallTime(millisecondsSinceEpoch: 1_796_119_200_000)
    let utc = TimeZone(secondsFromGMT: 0)!
    let plusOne = TimeZone(secondsFromGMT: 3600)!

    func parse(_ text: String, zone: TimeZone? = nil) throws -> Int64 {
        try HistoryTime.parse(text, now: now, zone: zone ?? utc).millisecondsSinceEpoch
    }

    @Test("spans count back from now, in the units durations use everywhere")
    func spans() throws {
        #expect(try parse("2h") == now.millisecondsSinceEpoch - 7_200_000)
        #expect(try parse("30m") == now.millisecondsSinceEpoch - 1_800_000)
        #expect(try parse("1d") == now.millisecondsSinceEpoch - 86_400_000)
        #expect(try parse("1.5h") == now.millisecondsSinceEpoch - 5_400_000)
        #expect(try parse("250ms") == now.millisecondsSinceEpoch - 250)
        #expect(try parse("now") == now.millisecondsSinceEpoch)
        #expect(try parse(" 45s ") == now.millisecondsSinceEpoch - 45_000)
    }

    @Test("a timestamp without a zone is local; Z and offsets name their own")
    func timestamps() throws {
        let tenUTC = now.millisecondsSinceEpoch
        #expect(try parse("2026-12-01T10:00", zone: utc) == tenUTC)
        #expect(try parse("2026-12-01T11:00", zone: plusOne) == tenUTC)
        #expect(try parse("2026-12-01 11:00:00", zone: plusOne) == tenUTC)
        #expect(try parse("2026-12-01T10:00:00Z", zone: plusOne) == tenUTC)
        #expect(try parse("2026-12-01T12:00:00+02:00", zone: utc) == tenUTC)
        #expect(try parse("2026-12-01T05:30:00-0430", zone: utc) == tenUTC)
        #expect(try parse("2026-12-01T10:00:00.25Z") == tenUTC + 250)
        #expect(try parse("2026-12-01", zone: plusOne) == tenUTC - 11 * 3_600_000)
    }

    @Test(
        "bad times are refused with the value and the forms allowed",
        arguments: [
            "", "2x", "-2h", "2", "yesterday", "2026-13-01", "2026-02-30", "2026-12-01T25:00", "2026-12-01T10",
            "2026-12-01T10:00junk", "2026-12-01T10:00:00+25:00", "2026-1-01",
        ])
    func badTimes(_ text: String) {
        do {
            _ = try HistoryTime.parse(text, now: now, zone: utc)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.description.contains("invalid time '\(text)'"), "\(error)")
            #expect(error.description.contains("2h") && error.description.contains("2026-12-01T10:00"), "\(error)")
        }
    }

    @Test("times are shown in the local zone with its offset, to the second")
    func localDisplay() {
        let time = WallTime(millisecondsSinceEpoch: now.millisecondsSinceEpoch + 5_999)
        #expect(HistoryTime.local(time, zone: utc) == "2026-12-01T10:00:05Z")
        #expect(HistoryTime.local(time, zone: plusOne) == "2026-12-01T11:00:05+01:00")
        #expect(
            HistoryTime.local(time, zone: TimeZone(secondsFromGMT: -(9 * 3600 + 1800))!) == "2026-12-01T00:30:05-09:30")
    }

    @Test("what is shown reads back as the same second")
    func roundTrip() throws {
        for zone in [utc, plusOne, TimeZone(secondsFromGMT: -7 * 3600)!] {
            let shown = HistoryTime.local(now, zone: zone)
            #expect(try HistoryTime.parse(shown, now: now, zone: utc) == now, "\(shown)")
        }
    }
}
