import QuotaWatchView
import Testing

/// `p` and the GROWTH column: what the rows say right after a resume, with frames at
/// controlled moments (one a second, as an idle in-process engine sends them).
@Suite struct WatchPauseGrowthTests {
    static let idle: UInt64 = 3_000_000
    static let small: UInt64 = 4_096

    /// The growth each row shows now, by name.
    static func growth(_ model: WatchModel) -> [String: Double?] {
        Dictionary(uniqueKeysWithValues: model.rows().map { (String(decoding: $0.name, as: UTF8.self), $0.growth) })
    }

    static func size(_ model: WatchModel, _ name: String) -> UInt64? {
        model.rows().first { $0.name == Array(name.utf8) }?.size
    }

    @Test func aDirectoryTheSameSizeAtPauseAndResumeNeverShowsNegativeGrowth() {
        var model = WatchModel()
        // Longer than the rate's window with nothing changing.
        for second in 0...40 {
            model.receive(frame([("a", Self.idle), ("c", Self.small)], seconds: Double(second)), listRows: 10)
        }
        _ = model.handle(.character("p"), listRows: 10, now: 40_000)
        // Paused: a temporary file comes and goes in c (a download moved on, a lock file).
        model.receive(frame([("a", Self.idle), ("c", Self.small + 500_000)], seconds: 41), listRows: 10)
        for second in 42...45 {
            model.receive(frame([("a", Self.idle), ("c", Self.small)], seconds: Double(second)), listRows: 10)
        }
        _ = model.handle(.character("p"), listRows: 10, now: 45_000)
        // Right after the resume, and every second after it until the window reaches the
        // second the file was there (from then on, for that second, c was larger a window ago).
        #expect(Self.growth(model) == ["a": 0, "c": 0])
        for second in 46...70 {
            model.receive(frame([("a", Self.idle), ("c", Self.small)], seconds: Double(second)), listRows: 10)
            let shown = Self.growth(model)
            #expect(shown == ["a": 0, "c": 0], "at \(second) s")
        }
    }

    @Test func aDirectoryThatGrewWhilePausedShowsWhatItGrewOverTheTimeSince() {
        var model = WatchModel()
        for second in 0...60 {
            model.receive(frame([("a", Self.idle), ("c", Self.small)], seconds: Double(second)), listRows: 10)
        }
        _ = model.handle(.character("p"), listRows: 10, now: 60_000)
        for second in 61...80 {
            let c = second >= 70 ? Self.small + 1_000_000 : Self.small
            model.receive(frame([("a", Self.idle), ("c", c)], seconds: Double(second)), listRows: 10)
        }
        // Paused, the screen holds what it showed.
        #expect(Self.size(model, "c") == Self.small)
        #expect(Self.growth(model) == ["a": 0, "c": 0])
        _ = model.handle(.character("p"), listRows: 10, now: 80_000)
        // Resumed, before the next frame: the newest sizes with their rates, both of the same
        // moment. 1 MB came 10 s ago: 100 kB/s, neither lost nor a spike.
        #expect(Self.size(model, "c") == Self.small + 1_000_000)
        let rate = Self.growth(model)["c"].flatMap { $0 }
        #expect(rate.map { abs($0 - 100_000) < 1 } == true, "c grows at \(String(describing: rate)) B/s")
        #expect(Self.growth(model)["a"] == 0)
    }
}
