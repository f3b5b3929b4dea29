import QuotaWatchCore

/// A budget shared by every directory matching `glob`, split by weight (see ``BudgetSplit``).
package struct BudgetRule: Sendable, Hashable {
    package var glob: PathGlob
    package var budget: UInt64
    /// The base weight of a member without an entry in `weights`.
    package var weight: Double
    /// Base weights by member path (relative to ROOT, as raw bytes).
    package var weights: [[UInt8]: Double]
    /// How much weight one recent change adds (0 turns activity off).
    package var activityWeight: Double
    package var thresholds: QuotaThresholds

    package init(
        glob: PathGlob, budget: UInt64, weight: Double = 1, weights: [[UInt8]: Double] = [:],
        activityWeight: Double = 1, thresholds: QuotaThresholds = QuotaThresholds()
    ) {
        self.glob = glob
        self.budget = budget
        self.weight = weight
        self.weights = weights
        self.activityWeight = activityWeight
        self.thresholds = thresholds
    }

    package func baseWeight(of path: [UInt8]) -> Double { weights[path] ?? weight }
}
