/// Settings of the breach forecast.
public struct ForecastSettings: Sendable, Hashable {
    /// Forecasts further out than this are not reported.
    public var horizon: Duration
    /// The growth rate is the growth over this much time (see ``GrowthRate``).
    public var window: Duration
    /// A forecast is reported again only when the predicted moment of the breach moved by more
    /// than this share of the lead time it was announced with ("a lot": 0.25 by default).
    public var changeRatio: Double

    public init(horizon: Duration = .seconds(3600), window: Duration = .seconds(30), changeRatio: Double = 0.25) {
        self.horizon = horizon
        self.window = window
        self.changeRatio = changeRatio
    }
}

/// A quota directory's growth rate (a ``GrowthRate`` over the settings' window) and the breach
/// forecast it implies.
///
/// A forecast is reported when size + rate × t reaches the limit within the horizon, once the
/// rate spans its minimum span (a new writer's rate is still rising before that). It is
/// reported again only when the predicted *moment* of the breach comes earlier by more than
/// `changeRatio` of the lead time of the last report: a steady writer's prediction stays put
/// as time passes, so it is announced once, not every second. A breach that recedes is news to
/// no one: the announcement silently follows it, so only a later speed-up is reported. An
/// announcement is forgotten once its moment has passed, or when the directory stops growing;
/// the next prediction is then news again.
public struct GrowthForecast: Sendable, Hashable {
    private var rate: GrowthRate
    private var announced: (breach: Moment, lead: Duration)?

    public init(settings: ForecastSettings = ForecastSettings()) { rate = GrowthRate(window: settings.window) }

    public static func == (lhs: GrowthForecast, rhs: GrowthForecast) -> Bool {
        lhs.rate == rhs.rate && lhs.announced?.breach == rhs.announced?.breach
            && lhs.announced?.lead == rhs.announced?.lead
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rate) }

    /// A forecast to report.
    public struct Prediction: Sendable, Hashable {
        public var secondsToBreach: Double
        public var bytesPerSecond: Double
    }

    /// The growth rate as of `moment`: 0 before two readings.
    public func bytesPerSecond(at moment: Moment) -> Double { rate.bytesPerSecond(at: moment) ?? 0 }

    /// Feeds a sample; returns a forecast when one is news.
    public mutating func sample(
        size: UInt64, at moment: Moment, effectiveLimit: UInt64, settings: ForecastSettings
    ) -> Prediction? {
        rate.record(size, at: moment)
        guard let estimate = rate.estimate(at: moment), estimate.isSettled else { return nil }
        guard
            let seconds = Self.secondsToBreach(
                size: size, effectiveLimit: effectiveLimit, rate: estimate.bytesPerSecond),
            seconds <= settings.horizon.secondsValue
        else {
            if estimate.bytesPerSecond <= 0 { announced = nil }
            return nil
        }
        let lead = Duration.seconds(seconds)
        let breach = moment + lead
        if let last = announced, moment < last.breach {
            if breach >= last.breach {
                announced = (breach, last.lead)
                return nil
            }
            if (last.breach - breach).secondsValue <= settings.changeRatio * last.lead.secondsValue { return nil }
        }
        announced = (breach, lead)
        return Prediction(secondsToBreach: seconds, bytesPerSecond: estimate.bytesPerSecond)
    }

    /// The seconds until `size` passes `effectiveLimit` at the rate as of `moment`, if it grows.
    public func secondsToBreach(size: UInt64, effectiveLimit: UInt64, at moment: Moment) -> Double? {
        Self.secondsToBreach(size: size, effectiveLimit: effectiveLimit, rate: bytesPerSecond(at: moment))
    }

    private static func secondsToBreach(size: UInt64, effectiveLimit: UInt64, rate: Double) -> Double? {
        guard rate > 0, size <= effectiveLimit else { return nil }
        return (Double(effectiveLimit) - Double(size)) / rate
    }
}
