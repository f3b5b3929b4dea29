/// Settings of the breach forecast.
package struct ForecastSettings: Sendable, Hashable {
    /// Forecasts further out than this are not reported.
    package var horizon: Duration
    /// The growth rate is the growth over this much time (see ``GrowthRate``).
    package var window: Duration
    /// A forecast is reported again only when the predicted moment of the breach moved by more
    /// than this share of the lead time it was announced with ("a lot": 0.25 by default).
    package var changeRatio: Double
    /// Forecasts for one directory and rule are never reported closer together than this,
    /// whatever the estimate does: a rate that is still rising towards a new writer's moves
    /// the predicted moment earlier at every reading.
    package var minimumInterval: Duration

    package init(
        horizon: Duration = .seconds(3600), window: Duration = .seconds(30), changeRatio: Double = 0.25,
        minimumInterval: Duration = .seconds(300)
    ) {
        self.horizon = horizon
        self.window = window
        self.changeRatio = changeRatio
        self.minimumInterval = minimumInterval
    }
}

/// A quota directory's growth rate (a ``GrowthRate`` over the settings' window) and the breach
/// forecast it implies, announced once per approach.
///
/// A forecast holds when size + rate × t reaches the limit within the horizon, once the rate
/// spans its minimum span. The first such forecast starts an *approach* and is reported. While
/// the approach lasts it is reported again only when the predicted *moment* of the breach comes
/// earlier by more than `changeRatio` of the lead time of the last report: a steady writer's
/// prediction stays put as time passes, so it is announced once, not every second. A breach
/// that recedes is news to no one: the approach silently follows it, so only a later speed-up
/// is reported. The approach ends when the breach comes (it is not foretold again while the
/// directory is in breach), or when the forecast no longer holds (the directory stopped growing,
/// or its breach moved past the horizon); the next forecast starts a new one. Whatever the
/// estimate does, reports are at least `minimumInterval` apart: a writer that starts on a
/// directory changed a few seconds earlier is measured with a rate still rising towards its
/// own, and each reading would move the predicted moment earlier by more than the ratio.
package struct GrowthForecast: Sendable, Hashable {
    /// The approach reported last: the predicted moment of its breach and the lead time it was
    /// reported with.
    private struct Approach: Sendable, Hashable {
        var breach: Moment
        var lead: Duration
    }

    private var rate: GrowthRate
    private var approach: Approach?
    private var lastReport: Moment?

    package init(settings: ForecastSettings = ForecastSettings()) { rate = GrowthRate(window: settings.window) }

    package static func == (lhs: GrowthForecast, rhs: GrowthForecast) -> Bool {
        lhs.rate == rhs.rate && lhs.approach == rhs.approach && lhs.lastReport == rhs.lastReport
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(rate) }

    /// A forecast to report.
    package struct Prediction: Sendable, Hashable {
        package var secondsToBreach: Double
        package var bytesPerSecond: Double
    }

    /// The span its growth rate is measured over.
    package var window: Duration { rate.window }

    /// The growth rate as of `moment`: 0 before two readings.
    package func bytesPerSecond(at moment: Moment) -> Double { rate.bytesPerSecond(at: moment) ?? 0 }

    /// Feeds a sample; returns a forecast when one is news. `inBreach` is the quota state's
    /// (a directory stays in breach until it falls a hysteresis band below the limit).
    package mutating func sample(
        size: UInt64, at moment: Moment, effectiveLimit: UInt64, inBreach: Bool = false, settings: ForecastSettings
    ) -> Prediction? {
        rate.record(size, at: moment)
        if inBreach || size > effectiveLimit {
            approach = nil
            return nil
        }
        guard let estimate = rate.estimate(at: moment), estimate.isSettled else { return nil }
        guard
            let seconds = Self.secondsToBreach(
                size: size, effectiveLimit: effectiveLimit, rate: estimate.bytesPerSecond),
            seconds <= settings.horizon.secondsValue
        else {
            approach = nil
            return nil
        }
        let lead = Duration.seconds(seconds)
        let breach = moment + lead
        if let last = approach {
            if breach >= last.breach {
                approach = Approach(breach: breach, lead: last.lead)
                return nil
            }
            if (last.breach - breach).secondsValue <= settings.changeRatio * last.lead.secondsValue { return nil }
        }
        // Held back, the news stays news: once the interval has passed it is reported if it still holds.
        if let lastReport, moment - lastReport < settings.minimumInterval { return nil }
        approach = Approach(breach: breach, lead: lead)
        lastReport = moment
        return Prediction(secondsToBreach: seconds, bytesPerSecond: estimate.bytesPerSecond)
    }

    /// The seconds until `size` passes `effectiveLimit` at the rate as of `moment`, if it grows.
    package func secondsToBreach(size: UInt64, effectiveLimit: UInt64, at moment: Moment) -> Double? {
        Self.secondsToBreach(size: size, effectiveLimit: effectiveLimit, rate: bytesPerSecond(at: moment))
    }

    private static func secondsToBreach(size: UInt64, effectiveLimit: UInt64, rate: Double) -> Double? {
        guard rate > 0, size <= effectiveLimit else { return nil }
        return (Double(effectiveLimit) - Double(size)) / rate
    }
}
