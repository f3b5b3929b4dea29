import Foundation

/// A count of events that halves every `halfLife`: "how busy was this directory lately".
///
/// It stores the value at its last update and decays lazily, so an idle directory costs
/// nothing until it is read.
package struct DecayingCount: Sendable, Hashable {
    package private(set) var valueAtUpdate: Double = 0
    package private(set) var updatedAt: Moment

    package init(at moment: Moment) { updatedAt = moment }

    /// The count as of `moment` (not earlier than the last update).
    package func value(at moment: Moment, halfLife: Duration) -> Double {
        let elapsed = (moment - updatedAt).secondsValue
        guard elapsed > 0, halfLife > .zero else { return valueAtUpdate }
        return valueAtUpdate * Self.decayFactor(elapsed: elapsed, halfLife: halfLife.secondsValue)
    }

    /// Adds `count` events that happened at `moment`.
    package mutating func add(_ count: Double = 1, at moment: Moment, halfLife: Duration) {
        valueAtUpdate = value(at: moment, halfLife: halfLife) + count
        if moment > updatedAt { updatedAt = moment }
    }

    /// 2^(−elapsed / halfLife).
    static func decayFactor(elapsed: Double, halfLife: Double) -> Double {
        guard halfLife > 0 else { return 0 }
        return exp2(-elapsed / halfLife)
    }
}
