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

    /// The same as one JSON document (``ConfigSummaryDocument``). Sizes are bytes, durations
    /// seconds, ratios fractions.
    package static func document(_ config: PolicyConfig) -> ConfigSummaryDocument {
        typealias Document = ConfigSummaryDocument
        func seconds(_ duration: Duration) -> ContractNumber { ContractNumber(duration.secondsValue) }
        func space(_ list: [SpaceThreshold]) -> [Document.SpaceThreshold] {
            list.map { threshold in
                switch threshold {
                case .bytes(let bytes): .bytes(bytes)
                case .share(let share): .share(ContractNumber(share))
                }
            }
        }
        let quotas = config.quotas.map { rule in
            Document.Quota(
                path: rule.glob.text, limit: rule.limit, warning: ContractNumber(rule.thresholds.warningRatio),
                hysteresis: ContractNumber(rule.thresholds.hysteresis), size: rule.thresholds.size.rawValue,
                protect: rule.thresholds.protect)
        }
        let budgets = config.budgets.map { rule in
            var weights: [String: ContractNumber] = [:]
            for (path, weight) in rule.weights { weights[EscapedName.string(path)] = ContractNumber(weight) }
            return Document.Budget(
                path: rule.glob.text, budget: rule.budget, weight: ContractNumber(rule.weight), weights: weights,
                activityWeight: ContractNumber(rule.activityWeight),
                warning: ContractNumber(rule.thresholds.warningRatio),
                hysteresis: ContractNumber(rule.thresholds.hysteresis), size: rule.thresholds.size.rawValue,
                protect: rule.thresholds.protect)
        }
        let levels = config.levels
        func perLevel(_ value: (DiskLevel) -> ContractNumber) -> Document.PerLevel {
            Document.PerLevel(normal: value(.normal), warning: value(.warning), critical: value(.critical))
        }
        let leftovers = leftoverRules(config).map { rule in
            let parameter: Document.LeftoverRule.Parameter
            switch rule.kind {
            case .idleFile(let age), .olderThan(let age): parameter = .age(seconds(age))
            case .keepNewest(let keep): parameter = .keep(Int64(keep))
            case .directoryOver(let limit): parameter = .limit(limit)
            }
            return Document.LeftoverRule(
                name: rule.name, kind: rule.kind.name, paths: rule.paths.map(\.text), protect: rule.protect,
                parameter: parameter)
        }
        let hooks = config.hooks.map { hook in
            Document.Hook(
                name: hook.name, command: hook.command.map { EscapedName.string($0) },
                events: hook.events.isEmpty ? ["all"] : hook.events.sorted(), timeout: seconds(hook.timeout),
                rateLimit: hook.rateLimitPerPath.map(seconds), queue: Int64(hook.queueLimit),
                coalesce: hook.coalescesPerPath)
        }
        return Document(
            profile: config.profile.rawValue, quotas: quotas, budgets: budgets,
            activityHalfLife: seconds(config.activityHalfLife),
            levels: Document.Levels(
                free: .init(warning: space(levels.freeWarning), critical: space(levels.freeCritical)),
                root: .init(warning: levels.rootWarning, critical: levels.rootCritical),
                scale: perLevel { ContractNumber(levels.scale[$0]) },
                check: perLevel { seconds(levels.checkPeriod[$0]) }, hysteresis: ContractNumber(levels.hysteresis),
                step: levels.maximumStep),
            leftovers: Document.Leftovers(
                age: seconds(config.leftovers.age), rules: leftovers, disabled: config.leftovers.disabled.sorted()),
            forecast: Document.Forecast(
                horizon: seconds(config.forecast.horizon), window: seconds(config.forecast.window),
                change: ContractNumber(config.forecast.changeRatio),
                minimumInterval: seconds(config.forecast.minimumInterval)),
            hooks: hooks, cleanup: cleanupDocument(config.cleanup), history: historyDocument(config.history))
    }
}
