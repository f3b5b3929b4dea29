import QuotaWatchPolicy
import Testing

@Suite("budgets and forecasts")
struct BudgetForecastTests {
    @Test("a budget is scaled by the level and split by base weight plus activity")
    func split() {
        let members = [
            BudgetSplit.Member(baseWeight: 1, activity: 0), BudgetSplit.Member(baseWeight: 3, activity: 0),
            BudgetSplit.Member(baseWeight: 1, activity: 4),
        ]
        #expect(
            BudgetSplit.effectiveLimits(budget: 900, scale: 1, members: members, activityWeight: 1) == [100, 300, 500])
        #expect(
            BudgetSplit.effectiveLimits(budget: 900, scale: 0.4, members: members, activityWeight: 1) == [40, 120, 200])
        #expect(
            BudgetSplit.effectiveLimits(budget: 900, scale: 1, members: members, activityWeight: 0) == [180, 540, 180])
        let idle = [BudgetSplit.Member(baseWeight: 0, activity: 0), BudgetSplit.Member(baseWeight: 0, activity: 0)]
        #expect(BudgetSplit.effectiveLimits(budget: 901, scale: 1, members: idle, activityWeight: 1) == [450, 450])
        let shares = BudgetSplit.effectiveLimits(
            budget: 1000, scale: 1, members: Array(repeating: members[0], count: 3), activityWeight: 1)
        #expect(shares.reduce(0, +) <= 1000)
    }

    @Test("activity halves every half-life")
    func decay() {
        var count = DecayingCount(at: .seconds(0))
        for _ in 0..<8 { count.add(at: .seconds(0), halfLife: .seconds(60)) }
        #expect(abs(count.value(at: .seconds(60), halfLife: .seconds(60)) - 4) < 1e-9)
        #expect(abs(count.value(at: .seconds(180), halfLife: .seconds(60)) - 1) < 1e-9)
        count.add(at: .seconds(60), halfLife: .seconds(60))
        #expect(abs(count.value(at: .seconds(60), halfLife: .seconds(60)) - 5) < 1e-9)
    }

    /// Feeds `sizes(t)` every `step` seconds from `from` to `to`; returns every prediction with its moment.
    static func feed(
        _ forecast: inout GrowthForecast, from: Double, to: Double, step: Double = 0.1, limit: UInt64,
        settings: ForecastSettings, size: (Double) -> UInt64
    ) -> [(at: Double, prediction: GrowthForecast.Prediction)] {
        var reported: [(Double, GrowthForecast.Prediction)] = []
        var t = from
        while t <= to + 1e-9 {
            if let p = forecast.sample(size: size(t), at: .seconds(t), effectiveLimit: limit, settings: settings) {
                reported.append((t, p))
            }
            t += step
        }
        return reported
    }

    @Test("a steady writer is measured within a few seconds and its breach announced once")
    func steady() {
        // The case that was 100x low: 6 MB under a 10 MB limit, written at 500 kB/s.
        let settings = ForecastSettings()
        var forecast = GrowthForecast(settings: settings)
        let reported = Self.feed(&forecast, from: 0, to: 7, limit: 10_000_000, settings: settings) {
            6_000_000 + UInt64($0 * 500_000)
        }
        let rate = forecast.bytesPerSecond(at: .seconds(7))
        #expect(abs(rate - 500_000) < 5_000, "rate \(rate)")
        #expect(abs(forecast.bytesPerSecond(at: .seconds(5)) - 500_000) < 5_000)
        // Breach at t = 8 s; predicted within 10 % by t = 5 s.
        let left = forecast.secondsToBreach(size: 9_500_000, effectiveLimit: 10_000_000, at: .seconds(7))
        #expect(left.map { abs($0 - 1) < 0.1 } == true, "\(String(describing: left))")
        // Nothing while the rate still spans less than its minimum (5 s), then one announcement
        // that stays put: the predicted moment does not move as the breach draws near.
        #expect(reported.count == 1, "\(reported.map(\.at))")
        #expect(reported.first.map { $0.at >= 5 && abs($0.prediction.secondsToBreach - 3) < 0.3 } == true)
    }

    @Test("a bursty writer is averaged over the window, not read at its burst rate")
    func bursty() {
        let settings = ForecastSettings(window: .seconds(30))
        var forecast = GrowthForecast(settings: settings)
        // 1 MB in the first second of every 10: 100 kB/s on average.
        _ = Self.feed(&forecast, from: 0, to: 60, limit: 1_000_000_000, settings: settings) { t in
            let whole = Int(t / 10)
            let within = min(t - Double(whole) * 10, 1)
            return UInt64(Double(whole) * 1_000_000 + within * 1_000_000)
        }
        let rate = forecast.bytesPerSecond(at: .seconds(60))
        #expect(rate > 70_000 && rate < 140_000, "rate \(rate)")
    }

    @Test("a shrinking directory forecasts nothing, and its next growth is news again")
    func shrinking() {
        let settings = ForecastSettings(minimumInterval: .zero)
        var forecast = GrowthForecast(settings: settings)
        let growing = Self.feed(&forecast, from: 0, to: 10, limit: 2_000_000, settings: settings) {
            1_000_000 + UInt64($0 * 10_000)
        }
        #expect(!growing.isEmpty)
        let shrinking = Self.feed(&forecast, from: 10.1, to: 50, limit: 2_000_000, settings: settings) {
            1_100_000 - UInt64(($0 - 10) * 10_000)
        }
        #expect(shrinking.isEmpty)
        #expect(forecast.bytesPerSecond(at: .seconds(50)) < 0)
        let again = Self.feed(&forecast, from: 50.1, to: 90, limit: 2_000_000, settings: settings) {
            700_000 + UInt64(($0 - 50) * 10_000)
        }
        #expect(!again.isEmpty)
    }

    @Test("idle for a long time, then a sudden steady writer: the rate is its own within a few seconds")
    func idleThenSudden() {
        let settings = ForecastSettings()
        var forecast = GrowthForecast(settings: settings)
        #expect(
            forecast.sample(size: 5_000_000, at: .seconds(0), effectiveLimit: 10_000_000, settings: settings) == nil)
        // An hour of nothing: no readings at all (the engine reads a directory when it changes).
        #expect(forecast.bytesPerSecond(at: .seconds(3600)) == 0)
        let reported = Self.feed(&forecast, from: 3600, to: 3606, limit: 10_000_000, settings: settings) {
            5_000_000 + UInt64(($0 - 3600) * 200_000)
        }
        let rate = forecast.bytesPerSecond(at: .seconds(3606))
        #expect(abs(rate - 200_000) < 5_000, "rate \(rate)")
        #expect(!reported.isEmpty)
        // And once it stops, the rate falls back to zero within a window.
        #expect(forecast.bytesPerSecond(at: .seconds(3606 + 31)) == 0)
    }

    @Test("a forecast beyond the horizon is not reported, but the rate is known")
    func horizon() {
        let settings = ForecastSettings(horizon: .seconds(60))
        var forecast = GrowthForecast(settings: settings)
        let reported = Self.feed(&forecast, from: 0, to: 20, step: 1, limit: 1_000_000, settings: settings) {
            UInt64($0 * 100)
        }
        #expect(reported.isEmpty)
        #expect(abs(forecast.bytesPerSecond(at: .seconds(20)) - 100) < 0.1)
    }

    @Test("a rate five times faster moves the predicted moment past the change ratio: news")
    func faster() {
        let settings = ForecastSettings(minimumInterval: .zero)
        var forecast = GrowthForecast(settings: settings)
        let slow = Self.feed(&forecast, from: 0, to: 40, step: 1, limit: 10_000_000, settings: settings) {
            9_000_000 + UInt64($0 * 1_000)
        }
        #expect(slow.count >= 1)
        let fast = Self.feed(&forecast, from: 41, to: 80, step: 1, limit: 10_000_000, settings: settings) {
            9_040_000 + UInt64(($0 - 40) * 5_000)
        }
        #expect(fast.contains { $0.prediction.bytesPerSecond > 4_000 }, "\(fast.map(\.prediction))")
    }

    @Test("after an idle window the first change counts: one write is spread, a file come and gone is no growth")
    func firstChangeAfterIdle() {
        var rate = GrowthRate(window: .seconds(30))
        rate.record(4_096, at: .seconds(0))
        // Longer than the window with nothing, then one write of 1 MB.
        rate.record(1_004_096, at: .seconds(40))
        #expect(rate.bytesPerSecond(at: .seconds(41)) == 200_000)
        #expect(rate.bytesPerSecond(at: .seconds(50)) == 100_000)
        // The file goes again: back where it was a window ago, so nothing grew.
        rate.record(4_096, at: .seconds(51))
        for second in 51...69 {
            #expect(rate.bytesPerSecond(at: .seconds(Double(second))) == 0, "at \(second) s")
        }
        // While the window's start lies in the 11 s the file was there, the size a window ago
        // was the larger one: over the window, the directory shrank. Then nothing again.
        #expect(rate.bytesPerSecond(at: .seconds(75)) == -1_000_000.0 / 30)
        for second in 81...90 {
            #expect(rate.bytesPerSecond(at: .seconds(Double(second))) == 0, "at \(second) s")
        }
    }

    @Test("readings are bounded: a window holds at most about 65 whatever the sampling rate")
    func bounded() {
        var rate = GrowthRate(window: .seconds(30))
        for i in 0..<100_000 { rate.record(UInt64(i), at: .seconds(Double(i) * 0.001)) }
        #expect(rate.readings.count <= 66)
        #expect(abs((rate.bytesPerSecond(at: .seconds(99.999)) ?? 0) - 1_000) < 20)
    }
}
