import QuotaWatchCore

/// What a directory holds, both ways of counting.
package struct DirectoryUsage: Sendable, Hashable {
    package var allocated: UInt64
    package var apparent: UInt64

    package init(allocated: UInt64, apparent: UInt64) {
        self.allocated = allocated
        self.apparent = apparent
    }

    package subscript(kind: SizeKind) -> UInt64 { kind == .allocated ? allocated : apparent }
}

/// The quota state of every quota directory, as pure bookkeeping the engine drives: it
/// attaches a directory when the ``RuleIndex`` says it matches rules, records its changes,
/// and asks for the events of an evaluation. `Key` is whatever names a directory in the
/// engine (its record id); keys are dropped with ``detach(_:)`` when the directory is
/// forgotten, since ids are reused.
///
/// A directory may match several rules; each is tracked on its own and its events name
/// their rule (its glob). Rule numbers are those of ``index``: the fixed quotas first, in
/// config order, then the budget groups.
package struct QuotaBook<Key: Hashable & Sendable>: Sendable {
    package let config: PolicyConfig
    /// Finds the rules of a directory from its parent's state and its name.
    package let index: RuleIndex

    struct Entry: Sendable {
        var path: [UInt8]
        var rules: [Int]
        var trackers: [QuotaTracker]
        var forecasts: [GrowthForecast]
        var activity: DecayingCount
        var lastChange: Moment?
        var lastUsage: DirectoryUsage?
    }

    private var entries: [Key: Entry] = [:]
    private var budgetMembers: [Set<Key>]
    /// Directories a cleanup run is bringing down: their states wait for the run's end.
    private var held: Set<Key> = []

    package init(config: PolicyConfig) {
        self.config = config
        index = RuleIndex(config.quotas.map(\.glob) + config.budgets.map(\.glob))
        budgetMembers = Array(repeating: [], count: config.budgets.count)
    }

    package var directoryCount: Int { entries.count }

    /// Starts tracking `key` at `path` under `rules` (a placement's `matched`). A directory
    /// already tracked keeps its states for the rules it still matches (a rename).
    package mutating func attach(_ key: Key, path: [UInt8], rules: [Int], at moment: Moment) {
        guard !rules.isEmpty else {
            detach(key)
            return
        }
        let old = entries[key]
        var entry = Entry(
            path: path, rules: rules, trackers: [], forecasts: [], activity: old?.activity ?? DecayingCount(at: moment),
            lastChange: old?.lastChange, lastUsage: old?.lastUsage)
        for rule in rules {
            let kept = old?.rules.firstIndex(of: rule)
            entry.trackers.append(kept.map { old!.trackers[$0] } ?? QuotaTracker())
            entry.forecasts.append(kept.map { old!.forecasts[$0] } ?? GrowthForecast(settings: config.forecast))
        }
        for budget in budgetMembers.indices {
            if rules.contains(config.quotas.count + budget) {
                budgetMembers[budget].insert(key)
            } else {
                budgetMembers[budget].remove(key)
            }
        }
        entries[key] = entry
    }

    /// Stops tracking `key`: its directory is gone or no longer matches.
    package mutating func detach(_ key: Key) {
        held.remove(key)
        guard let entry = entries.removeValue(forKey: key) else { return }
        for rule in entry.rules where rule >= config.quotas.count {
            budgetMembers[rule - config.quotas.count].remove(key)
        }
    }

    /// Every tracked key, in no particular order.
    package var trackedKeys: [Key] { Array(entries.keys) }

    /// Whether `key` is tracked under at least one rule.
    package func isTracked(_ key: Key) -> Bool { entries[key] != nil }

    /// The state of each rule `key` is tracked under, by the rule's glob: what a rebuilt book
    /// (a reloaded config) takes over with ``restore(_:states:)`` so nothing reports twice.
    package func states(of key: Key) -> [String: QuotaState] {
        guard let entry = entries[key] else { return [:] }
        var states: [String: QuotaState] = [:]
        for (slot, rule) in entry.rules.enumerated() { states[describe(rule).0.text] = entry.trackers[slot].state }
        return states
    }

    /// Sets the states of `key`'s rules whose glob is in `states`; the others stay as they are.
    package mutating func restore(_ key: Key, states: [String: QuotaState]) {
        guard var entry = entries[key] else { return }
        for (slot, rule) in entry.rules.enumerated() {
            if let state = states[describe(rule).0.text] { entry.trackers[slot] = QuotaTracker(state: state) }
        }
        entries[key] = entry
    }

    /// The forecast of each rule `key` is tracked under, by the rule's glob: its rate and the
    /// approach it announced, which a rebuilt book takes over so a reload repeats no forecast.
    package func forecasts(of key: Key) -> [String: GrowthForecast] {
        guard let entry = entries[key] else { return [:] }
        var forecasts: [String: GrowthForecast] = [:]
        for (slot, rule) in entry.rules.enumerated() { forecasts[describe(rule).0.text] = entry.forecasts[slot] }
        return forecasts
    }

    /// Takes over the forecasts of `key`'s rules whose glob is in `forecasts`, where they
    /// measure over this config's window (a new window starts afresh).
    package mutating func restore(_ key: Key, forecasts: [String: GrowthForecast]) {
        guard var entry = entries[key] else { return }
        for (slot, rule) in entry.rules.enumerated() {
            if let forecast = forecasts[describe(rule).0.text], forecast.window == config.forecast.window {
                entry.forecasts[slot] = forecast
            }
        }
        entries[key] = entry
    }

    /// A cleanup run is bringing `key` down: until ``release(_:)`` its states do not improve,
    /// so alerting sees breach → ok, not breach → warning → ok as the run walks the tally
    /// down through the warning band. A change for the worse under any of its rules is still
    /// reported at once (a second rule's breach is news, and waiting for the run's end took
    /// 1.7 s). Usage is still recorded for `status --quotas`.
    package mutating func hold(_ key: Key) {
        if entries[key] != nil { held.insert(key) }
    }

    /// The run that held `key` is over and its deletions are counted: the next evaluation
    /// decides its state once.
    package mutating func release(_ key: Key) { held.remove(key) }

    package func isHeld(_ key: Key) -> Bool { held.contains(key) }

    /// Counts one change below `key`, for budget weights and `status --quotas`.
    package mutating func recordChange(_ key: Key, at moment: Moment) {
        guard entries[key] != nil else { return }
        entries[key]!.activity.add(at: moment, halfLife: config.activityHalfLife)
        entries[key]!.lastChange = moment
    }

    /// The limit of `rule` for `key` now: the fixed limit or the budget share, scaled by
    /// `level`. O(members of the group) for a budget rule.
    package func effectiveLimit(rule: Int, for key: Key, level: DiskLevel, at moment: Moment) -> UInt64 {
        effectiveLimit(rule: rule, for: key, level: level, weights: nil, at: moment)
    }

    /// The weights of one budget group's members at one moment, and their sum.
    struct GroupWeights {
        var weights: [Key: Double] = [:]
        var total = 0.0
    }

    /// Every member's weight in `group` at `moment`, summed in the one order
    /// ``effectiveLimit(rule:for:level:at:)`` sums them, so a share from these is the same.
    func groupWeights(_ group: Int, at moment: Moment) -> GroupWeights {
        let budget = config.budgets[group]
        var result = GroupWeights()
        for member in budgetMembers[group] {
            guard let entry = entries[member] else { continue }
            let weight = BudgetSplit.Member(
                baseWeight: budget.baseWeight(of: entry.path),
                activity: entry.activity.value(at: moment, halfLife: config.activityHalfLife)
            ).weight(activityWeight: budget.activityWeight)
            result.total += weight
            result.weights[member] = weight
        }
        return result
    }

    /// With `weights` (every group's, as of `moment`) a budget share costs O(1) instead of
    /// O(members): what keeps evaluating or listing a whole group O(members), not O(members²).
    private func effectiveLimit(
        rule: Int, for key: Key, level: DiskLevel, weights: [GroupWeights]?, at moment: Moment
    ) -> UInt64 {
        let scale = config.levels.scale[level]
        if rule < config.quotas.count { return config.quotas[rule].effectiveLimit(scale: scale) }
        let group = rule - config.quotas.count
        let budget = config.budgets[group]
        let members = weights?[group] ?? groupWeights(group, at: moment)
        return BudgetSplit.share(
            budget: budget.budget, scale: scale, weight: members.weights[key] ?? 0, totalWeight: members.total,
            memberCount: budgetMembers[group].count)
    }

    /// Every budget group's weights as of `moment`.
    private func allGroupWeights(at moment: Moment) -> [GroupWeights] {
        budgetMembers.indices.map { groupWeights($0, at: moment) }
    }

    /// Evaluates `key` with its current usage: the quota transitions and forecasts to report.
    package mutating func evaluate(
        _ key: Key, usage: DirectoryUsage, level: DiskLevel, at moment: Moment, time: WallTime
    ) -> [PolicyEvent] {
        evaluate(key, usage: usage, level: level, weights: nil, at: moment, time: time)
    }

    private mutating func evaluate(
        _ key: Key, usage: DirectoryUsage, level: DiskLevel, weights: [GroupWeights]?, at moment: Moment,
        time: WallTime
    ) -> [PolicyEvent] {
        guard var entry = entries[key] else { return [] }
        let isHeld = held.contains(key)
        var events: [PolicyEvent] = []
        for (slot, rule) in entry.rules.enumerated() {
            let (glob, limit, thresholds) = describe(rule)
            let effective = effectiveLimit(rule: rule, for: key, level: level, weights: weights, at: moment)
            let used = usage[thresholds.size]
            let changed =
                isHeld
                ? entry.trackers[slot].worsen(used: used, effectiveLimit: effective, thresholds: thresholds)
                : entry.trackers[slot].update(used: used, effectiveLimit: effective, thresholds: thresholds)
            if let state = changed {
                events.append(
                    PolicyEvent(
                        .quota(
                            state: state, path: entry.path, used: used, size: thresholds.size, limit: limit,
                            effectiveLimit: effective, rule: glob.text, level: level), time: time))
            }
            // A run bringing it down is no approach: its rate is the run's.
            guard !isHeld else { continue }
            let prediction = entry.forecasts[slot].sample(
                size: used, at: moment, effectiveLimit: effective, inBreach: entry.trackers[slot].state == .breach,
                settings: config.forecast)
            if let prediction {
                events.append(
                    PolicyEvent(
                        .forecast(
                            path: entry.path, secondsToBreach: prediction.secondsToBreach,
                            bytesPerSecond: prediction.bytesPerSecond, rule: glob.text), time: time))
            }
        }
        entry.lastUsage = usage
        entries[key] = entry
        return events
    }

    /// Evaluates every tracked directory: after a level change (every effective limit moved),
    /// and now and then for budget groups, whose shares move with their members' activity.
    package mutating func evaluateAll(
        usage: (Key) -> DirectoryUsage?, level: DiskLevel, at moment: Moment, time: WallTime
    ) -> [PolicyEvent] {
        var events: [PolicyEvent] = []
        // Evaluating changes no weight (activity and membership stay), so the groups' weights
        // are taken once for the whole pass.
        let weights = allGroupWeights(at: moment)
        for key in entries.keys.sorted(by: { entries[$0]!.path.lexicographicallyPrecedes(entries[$1]!.path) }) {
            guard let current = usage(key) else { continue }
            events += evaluate(key, usage: current, level: level, weights: weights, at: moment, time: time)
        }
        return events
    }

    /// One row of `status --quotas`.
    package struct Row: Sendable, Hashable {
        package var path: [UInt8]
        package var rule: String
        package var size: SizeKind
        package var used: UInt64?
        package var limit: UInt64
        package var effectiveLimit: UInt64
        package var state: QuotaState
        package var bytesPerSecond: Double
        package var secondsToBreach: Double?
        package var sinceLastChange: Duration?
    }

    /// Every quota directory and rule, by path, as of the last evaluation.
    package func rows(level: DiskLevel, at moment: Moment) -> [Row] {
        var rows: [Row] = []
        let weights = allGroupWeights(at: moment)
        for (key, entry) in entries {
            for (slot, rule) in entry.rules.enumerated() {
                let (glob, limit, thresholds) = describe(rule)
                let effective = effectiveLimit(rule: rule, for: key, level: level, weights: weights, at: moment)
                let used = entry.lastUsage?[thresholds.size]
                let forecast = entry.forecasts[slot]
                rows.append(
                    Row(
                        path: entry.path, rule: glob.text, size: thresholds.size, used: used, limit: limit,
                        effectiveLimit: effective, state: entry.trackers[slot].state,
                        bytesPerSecond: forecast.bytesPerSecond(at: moment),
                        secondsToBreach: used.flatMap {
                            forecast.secondsToBreach(size: $0, effectiveLimit: effective, at: moment)
                        },
                        sinceLastChange: entry.lastChange.map { moment - $0 }))
            }
        }
        return rows.sorted {
            $0.path == $1.path ? $0.rule < $1.rule : $0.path.lexicographicallyPrecedes($1.path)
        }
    }

    private func describe(_ rule: Int) -> (PathGlob, UInt64, QuotaThresholds) {
        if rule < config.quotas.count {
            let quota = config.quotas[rule]
            return (quota.glob, quota.limit, quota.thresholds)
        }
        let budget = config.budgets[rule - config.quotas.count]
        return (budget.glob, budget.budget, budget.thresholds)
    }
}
