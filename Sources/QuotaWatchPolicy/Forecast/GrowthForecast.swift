/// Settings of the breach forecast.
public struct ForecastSettings: Sendable, Hashable {
    /// Forecasts further out than this are not reported.
    public var horizon: Duration
    /// The half-life of the growth-rate estimate: older growth counts half as much after it.
    public var halfLife: Duration
    /// A forecast is reported again only when the predicted time to breach moved by more than
    /// this share of the last reported one ("a lot": 0.25 by default).
    public var changeRatio: Double
    /// Samples closer together than this are merged, so a burst of writes within one
    /// millisecond does not read as an infinite rate.
    public var minimumInterval: Duration

    public init(
        horizon: Duration = .seconds(3600), halfLife: Duration = .seconds(600), changeRatio: Double = 0.25,
        minimumInterval: Duration = .seconds(1)
    ) {
        self.horizon = horizon
        self.halfLife = halfLife
        self.changeRatio = changeRatio
        self.minimumInterval = minimumInterval
    }
}

/// A quota directory's growth rate, estimated from (time, size) samples, and the breach
/// forecast it implies.
///
/// The rate is an exponentially weighted average of the rates between samples: a new rate r
/// measured over Δt moves the estimate by α = 1 − 2^(−Δt / half-life) towards r, so the
/// estimate forgets at the same pace however often it is sampled. A forecast is reported
/// when size + rate × t reaches the limit within the horizon, and again only when the
/// predicted time differs from the last reported one by more than `changeRatio` of it. When
/// the estimate stops predicting a breach within the horizon, the next prediction is news
/// again.
public struct GrowthForecast: Sendable, Hashable {
    public private(set) var bytesPerSecond: Double = 0
    private var lastSample: (moment: Moment, size: UInt64)?
    private var reportedSeconds: Double?

    public init() {}

    public static func == (lhs: GrowthForecast, rhs: GrowthForecast) -> Bool {
        lhs.bytesPerSecond == rhs.bytesPerSecond && lhs.lastSample?.moment == rhs.lastSample?.moment
            && lhs.lastSample?.size == rhs.lastSample?.size && lhs.reportedSeconds == rhs.reportedSeconds
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytesPerSecond) }

    /// A forecast to report.
    public struct Prediction: Sendable, Hashable {
        public var secondsToBreach: Double
        public var bytesPerSecond: Double
    }

    /// Feeds a sample; returns a forecast when one is news.
    public mutating func sample(
        size: UInt64, at moment: Moment, effectiveLimit: UInt64, settings: ForecastSettings
    ) -> Prediction? {
        guard let last = lastSample else {
            lastSample = (moment, size)
            return nil
        }
        let elapsed = moment - last.moment
        guard elapsed >= settings.minimumInterval, elapsed > .zero else { return nil }
        let seconds = elapsed.secondsValue
        let rate = (Double(size) - Double(last.size)) / seconds
        let alpha = 1 - DecayingCount.decayFactor(elapsed: seconds, halfLife: settings.halfLife.secondsValue)
        bytesPerSecond += alpha * (rate - bytesPerSecond)
        lastSample = (moment, size)
        return predict(size: size, effectiveLimit: effectiveLimit, settings: settings)
    }

    /// The seconds until `size` passes `effectiveLimit` at the current rate, if it grows.
    public func secondsToBreach(size: UInt64, effectiveLimit: UInt64) -> Double? {
        guard bytesPerSecond > 0, size <= effectiveLimit else { return nil }
        return (Double(effectiveLimit) - Double(size)) / bytesPerSecond
    }

    private mutating func predict(size: UInt64, effectiveLimit: UInt64, settings: ForecastSettings) -> Prediction? {
        guard let seconds = secondsToBreach(size: size, effectiveLimit: effectiveLimit),
            seconds <= settings.horizon.secondsValue
        else {
            reportedSeconds = nil
            return nil
        }
        if let reported = reportedSeconds, abs(seconds - reported) <= settings.changeRatio * reported {
            return nil
        }
        reportedSeconds = seconds
        return Prediction(secondsToBreach: seconds, bytesPerSecond: bytesPerSecond)
    }
}
