/// Splits a budget group's budget among its member directories.
///
/// The group's budget is first scaled by the disk level, then each member gets a share in
/// proportion to its weight: its base weight (the rule's `weight`, or its entry in
/// `weights`) plus `activityWeight` × its recent write activity (a ``DecayingCount`` of its
/// changes). When every weight is zero the budget is split evenly. Shares are rounded down,
/// so they never add up to more than the budget.
package enum BudgetSplit {
    package struct Member: Sendable, Hashable {
        package var baseWeight: Double
        package var activity: Double

        package init(baseWeight: Double, activity: Double) {
            self.baseWeight = baseWeight
            self.activity = activity
        }

        func weight(activityWeight: Double) -> Double {
            max(baseWeight, 0) + max(activityWeight, 0) * max(activity, 0)
        }
    }

    /// The effective limit of each member, in the order given.
    package static func effectiveLimits(
        budget: UInt64, scale: Double, members: [Member], activityWeight: Double
    ) -> [UInt64] {
        let weights = members.map { $0.weight(activityWeight: activityWeight) }
        let total = weights.reduce(0, +)
        return weights.map {
            share(budget: budget, scale: scale, weight: $0, totalWeight: total, memberCount: members.count)
        }
    }

    /// One member's share, given the sum of all members' weights.
    package static func share(
        budget: UInt64, scale: Double, weight: Double, totalWeight: Double, memberCount: Int
    )
        -> UInt64
    {
        guard memberCount > 0 else { return 0 }
        let scaledBudget = scaled(budget, by: scale)
        guard totalWeight > 0, totalWeight.isFinite else { return scaledBudget / UInt64(memberCount) }
        return scaled(scaledBudget, by: weight / totalWeight)
    }
}
