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

    @Test("a steady growth predicts the breach once, and again only after a big change")
    func forecast() {
        let settings = ForecastSettings(horizon: .seconds(3600), halfLife: .seconds(1), changeRatio: 0.25)
        var forecast = GrowthForecast()
        let limit: UInt64 = 1_000_000
        #expect(forecast.sample(size: 0, at: .seconds(0), effectiveLimit: limit, settings: settings) == nil)
        // 100 B/s with a 1 s half-life over 10 s samples: the estimate is ~100 B/s at once.
        // 9 990 s to go: beyond the horizon, so nothing is reported, but the rate is known.
        #expect(forecast.sample(size: 1000, at: .seconds(10), effectiveLimit: limit, settings: settings) == nil)
        #expect(abs(forecast.bytesPerSecond - 100) < 0.1)
        var fresh = GrowthForecast()
        _ = fresh.sample(size: 700_000, at: .seconds(0), effectiveLimit: limit, settings: settings)
        let predicted = fresh.sample(size: 701_000, at: .seconds(10), effectiveLimit: limit, settings: settings)
        #expect(predicted.map { abs($0.secondsToBreach - 2990) < 5 } == true, "\(String(describing: predicted))")
        // The same rate: the prediction moves by 10 s, not news.
        #expect(fresh.sample(size: 702_000, at: .seconds(20), effectiveLimit: limit, settings: settings) == nil)
        // Five times faster: news.
        let faster = fresh.sample(size: 707_000, at: .seconds(30), effectiveLimit: limit, settings: settings)
        #expect(faster.map { $0.bytesPerSecond > 400 } == true)
        // Shrinking: no forecast, and the next growth is news again.
        #expect(fresh.sample(size: 600_000, at: .seconds(40), effectiveLimit: limit, settings: settings) == nil)
        #expect(fresh.sample(size: 650_000, at: .seconds(50), effectiveLimit: limit, settings: settings) != nil)
    }

    @Test("a forecast beyond the horizon is not reported; samples closer than the minimum interval are merged")
    func horizonAndBursts() {
        let settings = ForecastSettings(horizon: .seconds(60), halfLife: .seconds(1))
        var forecast = GrowthForecast()
        _ = forecast.sample(size: 0, at: .seconds(0), effectiveLimit: 1_000_000, settings: settings)
        #expect(forecast.sample(size: 1000, at: .seconds(10), effectiveLimit: 1_000_000, settings: settings) == nil)
        #expect(
            forecast.sample(size: 900_000, at: .seconds(10.0001), effectiveLimit: 1_000_000, settings: settings) == nil)
        #expect(abs(forecast.bytesPerSecond - 100) < 0.1, "the burst within a millisecond did not count yet")
    }
}
