/// Splits a budget group's budget among its member directories.
///
/// The group's budget is first scaled by the disk level, then each member gets a share in
/// proportion to its weight: its base weight (the rule's `weight`, or its entry in
/// `weights`) plus `activityWeight` × its recent write activity (a ``DecayingCount`` of its
/// changes). When every weight is zero the budget is split evenly. Shares are rounded down,
/// so they never add up to more than the budget.
public enum BudgetSplit {
    public struct Member: Sendable, Hashable {
        public var baseWeight: Double
        public var activity: Double

        public init(baseWeight: Double, activity: Double) {
            self.baseWeight = baseWeight
            self.activity = activity
        }
    }

    /// The effective limit of each member, in the order given.
    public static func effectiveLimits(
        budget: UInt64, scale: Double, members: [Member], activityWeight: Double
    ) -> [UInt64] {
        guard !members.isEmpty else { return [] }
        let scaledBudget = scaled(budget, by: scale)
        let weights = members.map { max($0.baseWeight, 0) + max(activityWeight, 0) * max($0.activity, 0) }
        let total = weights.reduce(0, +)
        guard total > 0, total.isFinite else {
            return Array(repeating: scaledBudget / UInt64(members.count), count: members.count)
        }
        return weights.map { scaled(scaledBudget, by: $0 / total) }
    }
}
