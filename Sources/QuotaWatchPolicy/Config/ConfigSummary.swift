import QuotaWatchCore

/// The effective rules of a config for people (aligned tables) and programs (one JSON
/// object): what `quotawatch check-config` prints.
package enum ConfigSummary {
    /// The leftover rules shown: with `profile: auto` the built-ins are listed as they would
    /// apply to a sandbox-shaped ROOT, marked as such.
    static func leftoverRules(_ config: PolicyConfig) -> [LeftoverRule] {
        config.effectiveLeftoverRules(profileApplies: config.profile != .none)
    }

    static func parameter(_ kind: LeftoverKind) -> String {
        switch kind {
        case .idleFile(let age): "idle " + TimeSpan.format(age)
        case .keepNewest(let keep): "keep newest \(keep)"
        case .olderThan(let age): "older than " + TimeSpan.format(age)
        case .directoryOver(let limit): "over " + SizeText.exact(limit)
        }
    }

    static func argv(_ hook: HookSpec) -> String {
        hook.command.map { HumanText.name($0) }.joined(separator: " ")
    }

    static func events(_ hook: HookSpec) -> String {
        hook.events.isEmpty ? "all" : hook.events.sorted().joined(separator: ",")
    }

    package static func table(_ config: PolicyConfig) -> String {
        var text = "QUOTAS\n"
        if config.quotas.isEmpty {
            text += "  (none)\n"
        } else {
            text += columns(
                [["PATH", "LIMIT", "WARNING", "SIZE", "PROTECT"]]
                    + config.quotas.map { rule in
                        [
                            rule.glob.text, SizeText.exact(rule.limit), ShareText.format(rule.thresholds.warningRatio),
                            rule.thresholds.size.rawValue, rule.thresholds.protect ? "yes" : "no",
                        ]
                    })
        }
        text += "\nBUDGETS\n"
        if config.budgets.isEmpty {
            text += "  (none)\n"
        } else {
            text += columns(
                [["PATH", "BUDGET", "WEIGHT", "WEIGHTS", "WARNING", "SIZE", "PROTECT"]]
                    + config.budgets.map { rule in
                        let weights = rule.weights.keys.sorted { $0.lexicographicallyPrecedes($1) }.map {
                            HumanText.name($0) + "=" + PolicyJSON.numberText(rule.weights[$0]!)
                        }
                        return [
                            rule.glob.text, SizeText.exact(rule.budget), PolicyJSON.numberText(rule.weight),
                            weights.isEmpty ? "-" : weights.joined(separator: " "),
                            ShareText.format(rule.thresholds.warningRatio), rule.thresholds.size.rawValue,
                            rule.thresholds.protect ? "yes" : "no",
                        ]
                    })
        }
        let levels = config.levels
        func list(_ thresholds: [SpaceThreshold]) -> String { thresholds.map(\.description).joined(separator: " or ") }
        text += "\nLEVELS\n"
        text += columns([
            ["LEVEL", "FREE UNDER", "ROOT FROM", "QUOTA SCALE", "CHECK EVERY"],
            [
                "normal", "-", "-", PolicyJSON.numberText(levels.scale.normal),
                TimeSpan.format(levels.checkPeriod.normal),
            ],
            [
                "warning", list(levels.freeWarning), levels.rootWarning.map(SizeText.exact) ?? "-",
                PolicyJSON.numberText(levels.scale.warning), TimeSpan.format(levels.checkPeriod.warning),
            ],
            [
                "critical", list(levels.freeCritical), levels.rootCritical.map(SizeText.exact) ?? "-",
                PolicyJSON.numberText(levels.scale.critical), TimeSpan.format(levels.checkPeriod.critical),
            ],
        ])
        text += "  hysteresis \(ShareText.format(levels.hysteresis)); free space is read again after "
        text += "\(SizeText.exact(levels.maximumStep)) of changes at most\n"
        text += "\nLEFTOVERS (profile: \(config.profile.rawValue)"
        text +=
            config.profile == .auto
            ? "; the ios-sandbox rules apply when ROOT has Documents/, Library/ and tmp/)\n" : ")\n"
        let rules = leftoverRules(config)
        if rules.isEmpty {
            text += "  (none)\n"
        } else {
            text += columns(
                [["RULE", "KIND", "WHEN", "PATHS", "PROTECT"]]
                    + rules.map { rule in
                        [
                            rule.name, rule.kind.name, parameter(rule.kind),
                            rule.paths.map(\.text).joined(separator: " "), rule.protect ? "yes" : "no",
                        ]
                    })
        }
        if !config.leftovers.disabled.isEmpty {
            text +=
                "  disabled: " + config.leftovers.disabled.sorted().map(HumanText.escaped).joined(separator: ", ")
                + "\n"
        }
        text += "\nFORECAST\n"
        text += "  horizon \(TimeSpan.format(config.forecast.horizon)), growth over "
        text += "\(TimeSpan.format(config.forecast.window)), reported again after a change of "
        text += "\(ShareText.format(config.forecast.changeRatio)), at most one per "
        text += "\(TimeSpan.format(config.forecast.minimumInterval))\n"
        text += "\nHOOKS\n"
        if config.hooks.isEmpty {
            text += "  (none)\n"
        } else {
            text += columns(
                [["NAME", "EVENTS", "TIMEOUT", "RATE LIMIT", "COMMAND"]]
                    + config.hooks.map { hook in
                        [
                            hook.name, events(hook), TimeSpan.format(hook.timeout),
                            hook.rateLimitPerPath.map(TimeSpan.format) ?? "-", argv(hook),
                        ]
                    })
        }
        text += cleanersTable(config.cleanup)
        text += historyTable(config.history)
        return text
    }

    /// Every cell is escaped as every human output escapes names (``HumanText``): globs, paths
    /// and commands come from the config and may hold anything.
    static func columns(_ unescaped: [[String]]) -> String {
        let rows = unescaped.map { $0.map(HumanText.escaped) }
        let count = rows.map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = "  "
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - cell.count + 2) }
            }
            return line + "\n"
        }.joined()
    }

    /// The same as one JSON object. Sizes are bytes, durations seconds, ratios fractions.
    package static func json(_ config: PolicyConfig) -> PolicyJSON {
        func seconds(_ duration: Duration) -> PolicyJSON { .number(duration.secondsValue) }
        func thresholds(_ quota: QuotaThresholds) -> [String: PolicyJSON] {
            [
                "warning": .number(quota.warningRatio), "hysteresis": .number(quota.hysteresis),
                "size": .string(quota.size.rawValue), "protect": .bool(quota.protect),
            ]
        }
        func space(_ list: [SpaceThreshold]) -> PolicyJSON {
            .array(
                list.map { threshold in
                    switch threshold {
                    case .bytes(let bytes): .object(["bytes": .unsigned(bytes)])
                    case .share(let share): .object(["share": .number(share)])
                    }
                })
        }
        let quotas: [PolicyJSON] = config.quotas.map { rule in
            .object(
                thresholds(rule.thresholds).merging(["path": .string(rule.glob.text), "limit": .unsigned(rule.limit)]) {
                    $1
                })
        }
        let budgets: [PolicyJSON] = config.budgets.map { rule in
            var weights: [String: PolicyJSON] = [:]
            for (path, weight) in rule.weights { weights[EscapedName.string(path)] = .number(weight) }
            return .object(
                thresholds(rule.thresholds).merging([
                    "path": .string(rule.glob.text), "budget": .unsigned(rule.budget), "weight": .number(rule.weight),
                    "weights": .object(weights), "activity_weight": .number(rule.activityWeight),
                ]) { $1 })
        }
        let levels = config.levels
        func perLevel(_ value: (DiskLevel) -> PolicyJSON) -> PolicyJSON {
            .object(Dictionary(uniqueKeysWithValues: DiskLevel.allCases.map { ($0.rawValue, value($0)) }))
        }
        let leftovers: [PolicyJSON] = leftoverRules(config).map { rule in
            var fields: [String: PolicyJSON] = [
                "name": .string(rule.name), "kind": .string(rule.kind.name),
                "paths": .array(rule.paths.map { .string($0.text) }), "protect": .bool(rule.protect),
            ]
            switch rule.kind {
            case .idleFile(let age), .olderThan(let age): fields["age"] = seconds(age)
            case .keepNewest(let keep): fields["keep"] = .integer(Int64(keep))
            case .directoryOver(let limit): fields["limit"] = .unsigned(limit)
            }
            return .object(fields)
        }
        let hooks: [PolicyJSON] = config.hooks.map { hook in
            .object([
                "name": .string(hook.name), "command": .array(hook.command.map { .string(EscapedName.string($0)) }),
                "events": .array((hook.events.isEmpty ? ["all"] : hook.events.sorted()).map { .string($0) }),
                "timeout": seconds(hook.timeout), "rate_limit": hook.rateLimitPerPath.map(seconds) ?? .null,
                "queue": .integer(Int64(hook.queueLimit)), "coalesce": .bool(hook.coalescesPerPath),
            ])
        }
        return .object([
            "profile": .string(config.profile.rawValue),
            "quotas": .array(quotas),
            "budgets": .array(budgets),
            "activity_half_life": seconds(config.activityHalfLife),
            "levels": .object([
                "free": .object(["warning": space(levels.freeWarning), "critical": space(levels.freeCritical)]),
                "root": .object([
                    "warning": levels.rootWarning.map { .unsigned($0) } ?? .null,
                    "critical": levels.rootCritical.map { .unsigned($0) } ?? .null,
                ]),
                "scale": perLevel { .number(levels.scale[$0]) },
                "check": perLevel { seconds(levels.checkPeriod[$0]) },
                "hysteresis": .number(levels.hysteresis),
                "step": .unsigned(levels.maximumStep),
            ]),
            "leftovers": .object([
                "age": seconds(config.leftovers.age), "rules": .array(leftovers),
                "disabled": .array(config.leftovers.disabled.sorted().map { .string($0) }),
            ]),
            "forecast": .object([
                "horizon": seconds(config.forecast.horizon), "window": seconds(config.forecast.window),
                "change": .number(config.forecast.changeRatio),
                "min_interval": seconds(config.forecast.minimumInterval),
            ]),
            "hooks": .array(hooks),
            "cleanup": cleanersJSON(config.cleanup),
            "history": historyJSON(config.history),
        ])
    }
}
