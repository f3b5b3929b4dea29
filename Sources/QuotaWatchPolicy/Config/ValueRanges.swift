import QuotaWatchCore

/// The values each option and config key allows, in one place, so `run`'s options and the
/// config file refuse the same values with the same words (docs/configuration.md, "Values"). A minimum
/// above zero is where zero or a tiny value would make the daemon spin: a leftover held
/// open re-checked every turn, a free-space read or a cleanup run at every turn, a history
/// trimmed to nothing over and over.
package enum ValueRanges {
    /// `leftovers.age`, a leftover rule's `age`, `--leftover-after`.
    package static let leftoverAge = TimeSpan.atLeast(.seconds(1))
    /// `activity_half_life`, `forecast.half_life`, `forecast.horizon`.
    package static let halfLife = TimeSpan.atLeast(.milliseconds(1))
    package static let forecastHorizon = TimeSpan.atLeast(.milliseconds(1))
    /// `forecast.min_interval`: 0 leaves only the change ratio between two reports.
    package static let forecastMinimumInterval = TimeSpan.anyDuration
    /// `levels.check.*`: how often free space is read.
    package static let levelCheck = TimeSpan.atLeast(.milliseconds(100))
    /// `periodic.*`: the fallback cleanup runs.
    package static let periodicCleanup = TimeSpan.atLeast(.seconds(1))
    /// A hook's or a command cleaner's `timeout`, a hook's `rate_limit`.
    package static let timeout = TimeSpan.atLeast(.milliseconds(1))
    package static let rateLimit = TimeSpan.atLeast(.milliseconds(1))
    /// An `expire` cleaner's `age`.
    package static let expireAge = TimeSpan.atLeast(.milliseconds(1))
    /// `history.sample_every`, `--history-sample`.
    package static let historySample = TimeSpan.atLeast(.milliseconds(100))
    /// `--verify-every`: 0 turns the verification sweep off.
    package static let verifyEvery = TimeSpan.anyDuration
    /// `--verify-budget`: the share of a core the verification sweep may use.
    package static let verifyBudget: ClosedRange<Double> = 0.0001...1
    /// `history.keep`, `--history-keep`.
    package static let historyKeep = TimeSpan.atLeast(.seconds(60))
    /// `history.max_size`, `--history-max-size`.
    package static let historyMaximumBytes: ClosedRange<UInt64> = 1_000_000...UInt64.max
    /// `levels.step`: free space is read again after this much change.
    package static let levelStep: ClosedRange<UInt64> = 4096...UInt64.max

    /// `warning`, `hysteresis`, `levels.hysteresis`, `forecast.change`.
    package static let ratio: ClosedRange<Double> = 0...1
    /// An `evict` cleaner's `target`: above 0, or eviction would empty the directory.
    package static let evictionTarget: ClosedRange<Double> = 0.01...1
    /// `levels.scale.*`.
    package static let levelScale: ClosedRange<Double> = 0...10
    /// `weight`, `weights`, `activity_weight`.
    package static let weight: ClosedRange<Double> = 0...1_000_000
    /// A `keep-newest` rule's `keep`.
    package static let keepNewest: ClosedRange<Int> = 0...1_000_000
    /// A hook's `queue`.
    package static let hookQueue: ClosedRange<Int> = 1...100_000
}
