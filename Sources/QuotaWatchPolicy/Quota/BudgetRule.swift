import QuotaWatchCore

/// A budget shared by every directory matching `glob`, split by weight (see ``BudgetSplit``).
public struct BudgetRule: Sendable, Hashable {
    public var glob: PathGlob
    public var budget: UInt64
    /// The base weight of a member without an entry in `weights`.
    public var weight: Double
    /// Base weights by member path (relative to ROOT, as raw bytes).
    public var weights: [[UInt8]: Double]
    /// How much weight one recent change adds (0 turns activity off).
    public var activityWeight: Double
    public var thresholds: QuotaThresholds

    public init(
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

    public func baseWeight(of path: [UInt8]) -> Double { weights[path] ?? weight }
}
