import QuotaWatchPolicy
import Testing

/// One forecast per approach: a steady writer, one that speeds up, one that slows down, a
/// breach, and the minimum interval between two reports.
@Suite("forecast approaches")
struct ForecastApproachTests {
    typealias Report = (at: Double, prediction: GrowthForecast.Prediction)

    /// Samples `size(t)` every `step` seconds from `from` to `to` (inclusive).
    static func feed(
        _ forecast: inout GrowthForecast, from: Double, to: Double, step: Double, limit: UInt64,
        settings: ForecastSettings, inBreach: Bool = false, size: (Double) -> UInt64
    ) -> [Report] {
        var reported: [Report] = []
        var t = from
        while t <= to + 1e-9 {
            if let p = forecast.sample(
                size: size(t), at: .seconds(t), effectiveLimit: limit, inBreach: inBreach, settings: settings)
            {
                reported.append((t, p))
            }
            t += step
        }
        return reported
    }

    @Test("26 × 1 MB written on a directory changed 10 s before: one forecast, not one per megabyte")
    func writerAfterRecentChange() {
        let settings = ForecastSettings()
        var forecast = GrowthForecast(settings: settings)
        _ = forecast.sample(size: 1_000_000, at: .seconds(0), effectiveLimit: 20_000_000, settings: settings)
        // The rate still averages the 10 idle seconds: it rises at every megabyte, and so
        // every megabyte moves the predicted breach earlier by more than a quarter.
        let reported = Self.feed(
            &forecast, from: 10, to: 10 + 25 * 0.32, step: 0.32, limit: 20_000_000, settings: settings
        ) {
            1_000_000 + UInt64(($0 - 10) / 0.32 + 1.5) * 1_000_000
        }
        #expect(reported.count == 1, "\(reported.map { ($0.at, $0.prediction.secondsToBreach) })")
    }

    @Test("a steady writer is announced once over its whole approach, however long")
    func steady() {
        let settings = ForecastSettings(minimumInterval: .seconds(60))
        var forecast = GrowthForecast(settings: settings)
        // 1 kB/s towards a limit 1 000 s away: the interval passes many times over.
        let reported = Self.feed(&forecast, from: 0, to: 990, step: 1, limit: 1_000_000, settings: settings) {
            UInt64($0 * 1_000)
        }
        #expect(reported.count == 1, "\(reported.map(\.at))")
    }

    @Test("a writer that speeds up is announced again once the interval has passed, not before")
    func speedsUp() {
        let settings = ForecastSettings(minimumInterval: .seconds(300))
        var forecast = GrowthForecast(settings: settings)
        let slow = Self.feed(&forecast, from: 0, to: 100, step: 1, limit: 10_000_000, settings: settings) {
            UInt64($0 * 5_000)
        }
        #expect(slow.count == 1)
        // Four times faster at 100 s: the breach moves from ~2000 s to ~575 s, news, but held
        // back until 300 s after the first report.
        let fast = Self.feed(&forecast, from: 101, to: 400, step: 1, limit: 10_000_000, settings: settings) {
            500_000 + UInt64(($0 - 100) * 20_000)
        }
        #expect(fast.count == 1, "\(fast.map(\.at))")
        #expect(fast.first.map { $0.at >= slow[0].at + 300 && $0.prediction.bytesPerSecond > 15_000 } == true)
    }

    @Test("a speed-up within the change ratio is not news, even with no interval")
    func smallSpeedUp() {
        let settings = ForecastSettings(minimumInterval: .zero)
        var forecast = GrowthForecast(settings: settings)
        let first = Self.feed(&forecast, from: 0, to: 60, step: 1, limit: 2_000_000, settings: settings) {
            UInt64($0 * 10_000)
        }
        #expect(first.count == 1)
        // 10 % faster: the breach comes ~13 s earlier than the ~140 s announced: under 25 %.
        let faster = Self.feed(&forecast, from: 61, to: 120, step: 1, limit: 2_000_000, settings: settings) {
            600_000 + UInt64(($0 - 60) * 11_000)
        }
        #expect(faster.isEmpty, "\(faster.map(\.at))")
    }

    @Test("a writer that slows down is not announced again")
    func slowsDown() {
        let settings = ForecastSettings(minimumInterval: .zero)
        var forecast = GrowthForecast(settings: settings)
        let fast = Self.feed(&forecast, from: 0, to: 20, step: 0.5, limit: 10_000_000, settings: settings) {
            UInt64($0 * 100_000)
        }
        #expect(fast.count == 1)
        let slow = Self.feed(&forecast, from: 20.5, to: 200, step: 0.5, limit: 10_000_000, settings: settings) {
            2_000_000 + UInt64(($0 - 20) * 10_000)
        }
        #expect(slow.isEmpty, "\(slow.map(\.at))")
    }

    @Test("a breach that came is not foretold again; the next approach after it is news")
    func breachEndsTheApproach() {
        let settings = ForecastSettings(minimumInterval: .seconds(60))
        var forecast = GrowthForecast(settings: settings)
        let approach = Self.feed(&forecast, from: 0, to: 10, step: 0.5, limit: 1_000_000, settings: settings) {
            UInt64($0 * 90_000)
        }
        #expect(approach.count == 1)
        // In breach (the tracker's state) while a run brings it down: nothing.
        let inBreach = Self.feed(
            &forecast, from: 10.5, to: 30, step: 0.5, limit: 1_000_000, settings: settings, inBreach: true
        ) { _ in 1_000_000 }
        #expect(inBreach.isEmpty)
        // Back under, the writer still at it: a new approach, reported once the interval has passed.
        let again = Self.feed(&forecast, from: 30.5, to: 120, step: 0.5, limit: 10_000_000, settings: settings) {
            1_000_000 + UInt64(($0 - 30) * 50_000)
        }
        #expect(again.count == 1, "\(again.map(\.at))")
        #expect(again.first.map { $0.at >= approach[0].at + 60 } == true)
    }

    @Test("a breach moving past the horizon ends the approach; coming back within it is news")
    func beyondHorizon() {
        let settings = ForecastSettings(horizon: .seconds(100), minimumInterval: .zero)
        var forecast = GrowthForecast(settings: settings)
        let near = Self.feed(&forecast, from: 0, to: 10, step: 1, limit: 1_000_000, settings: settings) {
            500_000 + UInt64($0 * 10_000)
        }
        #expect(near.count == 1)
        // Idle for a window: the rate falls to 0, and the approach is over.
        #expect(
            Self.feed(&forecast, from: 11, to: 60, step: 1, limit: 1_000_000, settings: settings) { _ in 600_000 }
                .isEmpty)
        let back = Self.feed(&forecast, from: 61, to: 80, step: 1, limit: 1_000_000, settings: settings) {
            600_000 + UInt64(($0 - 60) * 10_000)
        }
        #expect(back.count == 1)
    }
}
