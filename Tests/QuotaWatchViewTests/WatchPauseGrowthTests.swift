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
}
