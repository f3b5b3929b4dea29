import QuotaWatchCore
import QuotaWatchPolicy

/// Reads a YAML config into a ``PolicyConfig``. The schema is documented in docs/configuration.md
/// ("Configuration") and in docs/quotawatch.example.yaml.
package enum PolicyConfigLoader {
    static let topKeys =
        ["profile", "quotas", "levels", "leftovers", "forecast", "activity_half_life", "hooks", "roots"]
        + cleanupTopKeys + historyTopKeys

    /// Decodes `bytes`, the contents of the file named `file` (used in messages only).
    package static func load(_ bytes: [UInt8], file: String) throws(ConfigError) -> PolicyConfig {
        let document: YAMLNode?
        do {
            document = try YAMLReader.read(bytes)
        } catch {
            throw ConfigError(
                file: file, line: error.mark.line, column: error.mark.column, key: "", message: error.message)
        }
        var config = PolicyConfig()
        guard let document else { return config }
        let top = try Field(node: document, key: "", file: file).mapping(allowed: topKeys)
        if let field = top["profile"] {
            config.profile = ProfileChoice(rawValue: try field.choice(ProfileChoice.allCases.map(\.rawValue)))!
        }
        for item in try top["quotas"]?.list() ?? [] { try quota(item, into: &config) }
        if let field = top["levels"] { config.levels = try levels(field) }
        if let field = top["leftovers"] { config.leftovers = try leftovers(field) }
        if let field = top["forecast"] { config.forecast = try forecast(field) }
        if let field = top["activity_half_life"] {
            config.activityHalfLife = try field.duration(in: ValueRanges.halfLife)
        }
        var names: Set<String> = []
        for (index, item) in (try top["hooks"]?.list() ?? []).enumerated() {
            let hook = try hook(item, number: index + 1)
            guard names.insert(hook.name).inserted else {
                throw item.error("a second hook named '\(hook.name)'; give each hook its own name")
            }
            config.hooks.append(hook)
        }
        config.cleanup = try cleanup(top)
        config.history = try history(top)
        for item in try top["roots"]?.list() ?? [] { config.roots.append(try root(item)) }
        return config
    }

    /// `- /home/*` or `- {path: /srv/apps/*, config: /etc/quotawatch/apps.yaml}`.
    private static func root(_ field: Field) throws(ConfigError) -> RootPattern {
        func absolute(_ field: Field, _ what: String) throws(ConfigError) -> [UInt8] {
            let path = try field.path()
            guard path.first == UInt8(ascii: "/") else {
                throw field.error(
                    "'\(EscapedName.string(path))' is not absolute: write \(what) from /, such as \(example(what))")
            }
            return path
        }
        func example(_ what: String) -> String {
            what == "the root" ? "'/home/*' or '/srv/app'" : "'/etc/quotawatch/apps.yaml'"
        }
        if case .scalar = field.node.content { return RootPattern(pattern: try absolute(field, "the root")) }
        let map = try field.mapping(allowed: ["path", "config"])
        let pattern = try absolute(
            try map.required("path", what: "the root, or a glob of roots such as '/home/*'"), "the root")
        return RootPattern(
            pattern: pattern,
            config: try map["config"].map { (field) throws(ConfigError) in try absolute(field, "the config file") })
    }

    private static func quota(_ field: Field, into config: inout PolicyConfig) throws(ConfigError) {
        let map = try field.mapping(allowed: [
            "path", "limit", "budget", "warning", "size", "protect", "hysteresis", "weight", "weights",
            "activity_weight",
        ])
        let glob = try map.required("path", what: "the directories this quota applies to, such as 'Library/Caches/*'")
            .glob()
        var thresholds = QuotaThresholds()
        if let value = map["warning"] { thresholds.warningRatio = try value.ratio() }
        if let value = map["hysteresis"] { thresholds.hysteresis = try value.ratio() }
        if let value = map["size"] {
            thresholds.size = SizeKind(rawValue: try value.choice(["allocated", "apparent"]))!
        }
        if let value = map["protect"] { thresholds.protect = try value.bool() }
        switch (map["limit"], map["budget"]) {
        case (let limit?, nil):
            for key in ["weight", "weights", "activity_weight"] where map[key] != nil {
                throw map[key]!.error("'\(key)' belongs to a budget group; give 'budget' instead of 'limit'")
            }
            config.quotas.append(QuotaRule(glob: glob, limit: try limit.size(), thresholds: thresholds))
        case (nil, let budget?):
            var rule = BudgetRule(glob: glob, budget: try budget.size(), thresholds: thresholds)
            if let value = map["weight"] { rule.weight = try value.number(in: ValueRanges.weight) }
            if let value = map["activity_weight"] { rule.activityWeight = try value.number(in: ValueRanges.weight) }
            if let value = map["weights"] { rule.weights = try memberWeights(value, of: glob) }
            config.budgets.append(rule)
        case (.some, .some):
            throw map["budget"]!.error("a quota has either 'limit' (each directory) or 'budget' (shared), not both")
        case (nil, nil):
            throw field.error("'limit' or 'budget' is missing: give each directory a limit, or the group a budget")
        }
    }

    private static func memberWeights(_ field: Field, of glob: PathGlob) throws(ConfigError) -> [[UInt8]: Double] {
        guard case .mapping(let pairs) = field.node.content else {
            throw field.error("expected a mapping of paths to weights, such as {\"Library/Caches/feed\": 3}")
        }
        var weights: [[UInt8]: Double] = [:]
        for pair in pairs {
            let keyField = field.child(pair.key, key: field.key)
            let path = try keyField.path()
            let name = HumanText.name(path)
            guard glob.matches(path) else {
                throw keyField.error("'\(name)' is not a member of this group: it does not match '\(glob.text)'")
            }
            weights[path] = try field.child(pair.value, key: field.key + "." + name).number(in: ValueRanges.weight)
        }
        return weights
    }

    private static func levels(_ field: Field) throws(ConfigError) -> LevelPolicy {
        let map = try field.mapping(allowed: ["free", "root", "scale", "hysteresis", "check", "step"])
        var levels = LevelPolicy()
        if let free = map["free"] {
            let pair = try free.mapping(allowed: ["warning", "critical"])
            if let value = pair["warning"] { levels.freeWarning = try value.spaceThresholds() }
            if let value = pair["critical"] { levels.freeCritical = try value.spaceThresholds() }
        }
        if let root = map["root"] {
            let pair = try root.mapping(allowed: ["warning", "critical"])
            if let value = pair["warning"] { levels.rootWarning = try value.size() }
            if let value = pair["critical"] { levels.rootCritical = try value.size() }
        }
        if let scale = map["scale"] {
            let each = try scale.mapping(allowed: ["normal", "warning", "critical"])
            for level in DiskLevel.allCases {
                if let value = each[level.rawValue] {
                    levels.scale[level] = try value.number(in: ValueRanges.levelScale)
                }
            }
        }
        if let check = map["check"] {
            let each = try check.mapping(allowed: ["normal", "warning", "critical"])
            for level in DiskLevel.allCases {
                if let value = each[level.rawValue] {
                    levels.checkPeriod[level] = try value.duration(in: ValueRanges.levelCheck)
                }
            }
        }
        if let value = map["hysteresis"] { levels.hysteresis = try value.ratio() }
        if let value = map["step"] { levels.maximumStep = try value.size(in: ValueRanges.levelStep) }
        return levels
    }

    private static func forecast(_ field: Field) throws(ConfigError) -> ForecastSettings {
        let map = try field.mapping(allowed: ["horizon", "window", "half_life", "change", "min_interval"])
        var settings = ForecastSettings()
        if let value = map["horizon"] { settings.horizon = try value.duration(in: ValueRanges.forecastHorizon) }
        // `half_life` named the window of the decaying average this replaced; it still sets the window.
        if let value = map["window"] ?? map["half_life"] {
            settings.window = try value.duration(in: ValueRanges.halfLife)
        }
        if let value = map["change"] { settings.changeRatio = try value.ratio() }
        if let value = map["min_interval"] {
            settings.minimumInterval = try value.duration(in: ValueRanges.forecastMinimumInterval)
        }
        return settings
    }

    private static func leftovers(_ field: Field) throws(ConfigError) -> LeftoverSettings {
        let map = try field.mapping(allowed: ["age", "rules", "disable"])
        var settings = LeftoverSettings()
        if let value = map["age"] { settings.age = try value.duration(in: ValueRanges.leftoverAge) }
        let builtIns = IOSSandboxProfile.rules(age: settings.age)
        for item in try map["rules"]?.list() ?? [] {
            let rule = try leftoverRule(item, builtIns: builtIns, defaultAge: settings.age)
            if settings.rules.contains(where: { $0.name == rule.name }) {
                throw item.error("a second rule named '\(rule.name)'; give each rule its own name")
            }
            settings.rules.append(rule)
        }
        let known = builtIns.map(\.name) + settings.rules.map(\.name)
        for item in try map["disable"]?.list(singleAllowed: true) ?? [] {
            let name = try item.text(expecting: "a rule name")
            guard known.contains(name) else {
                var message = "no leftover rule is named '\(name)'"
                if let suggestion = Spelling.suggestion(for: name, among: known) {
                    message += "; did you mean '\(suggestion)'?"
                }
                throw item.error(message + " Rules: " + known.joined(separator: ", "))
            }
            settings.disabled.insert(name)
        }
        return settings
    }

    private static func leftoverRule(
        _ field: Field, builtIns: [LeftoverRule], defaultAge: Duration
    ) throws(ConfigError) -> LeftoverRule {
        let map = try field.mapping(allowed: ["name", "paths", "kind", "age", "keep", "limit", "protect"])
        let name = try map.required("name", what: "a name for reports and 'disable'").text(expecting: "a rule name")
        let base = builtIns.first { $0.name == name }
        var paths = base?.paths ?? []
        if let value = map["paths"] {
            paths = []
            for item in try value.list(singleAllowed: true) { paths.append(try item.glob()) }
        }
        if paths.isEmpty { throw field.error("'paths' is missing: the globs this rule looks at") }
        var kind: LeftoverKind
        if let value = map["kind"] {
            switch try value.choice(LeftoverKind.names) {
            case "idle-file": kind = .idleFile(age: defaultAge)
            case "keep-newest": kind = .keepNewest(keep: 1)
            case "older-than": kind = .olderThan(age: defaultAge)
            default:
                let limit = try map.required("limit", what: "the size above which the directory is reported")
                kind = .directoryOver(limit: try limit.size())
            }
        } else if let baseKind = base?.kind {
            kind = baseKind
        } else {
            throw field.error("'kind' is missing: one of " + LeftoverKind.names.joined(separator: ", "))
        }
        if let value = map["age"] {
            let age = try value.duration(in: ValueRanges.leftoverAge)
            switch kind {
            case .idleFile: kind = .idleFile(age: age)
            case .olderThan: kind = .olderThan(age: age)
            default: throw value.error("'age' applies to kinds idle-file and older-than, not \(kind.name)")
            }
        }
        if let value = map["keep"] {
            guard case .keepNewest = kind else {
                throw value.error("'keep' applies to kind keep-newest, not \(kind.name)")
            }
            kind = .keepNewest(keep: try value.integer(in: ValueRanges.keepNewest))
        }
        if let value = map["limit"] {
            guard case .directoryOver = kind else {
                throw value.error("'limit' applies to kind directory-over, not \(kind.name)")
            }
            kind = .directoryOver(limit: try value.size())
        }
        let protect = try map["protect"]?.bool() ?? base?.protect ?? false
        return LeftoverRule(name: name, paths: paths, kind: kind, protect: protect)
    }

    private static func hook(_ field: Field, number: Int) throws(ConfigError) -> HookSpec {
        let map = try field.mapping(allowed: [
            "name", "command", "events", "timeout", "rate_limit", "queue", "coalesce", "stdout",
        ])
        let commandField = try map.required("command", what: "the program and its arguments, as a list")
        guard case .sequence = commandField.node.content else {
            throw commandField.error(
                "expected the command as a list of words, such as [\"notify-send\", \"QuotaWatch\"] "
                    + "(no shell runs it; write [\"sh\", \"-c\", \"...\"] for one), found \(commandField.node.kindDescription)"
            )
        }
        var argv: [[UInt8]] = []
        for item in try commandField.list() {
            argv.append(Array(try item.text(expecting: "a word of the command").utf8))
        }
        guard let program = argv.first, !program.isEmpty else {
            throw commandField.error("the command is empty; give at least the program to run")
        }
        let name = try map["name"]?.text(expecting: "a hook name") ?? "hook-\(number)"
        var hook = HookSpec(name: name, command: argv)
        if let value = map["events"] {
            var names: [String] = []
            for item in try value.list(singleAllowed: true) { names.append(try item.text(expecting: "an event kind")) }
            do {
                hook.events = try HookEventNames.parse(names)
            } catch {
                throw value.error(error.description)
            }
        }
        if let value = map["timeout"] { hook.timeout = try value.duration(in: ValueRanges.timeout) }
        if let value = map["rate_limit"] { hook.rateLimitPerPath = try value.duration(in: ValueRanges.rateLimit) }
        if let value = map["queue"] { hook.queueLimit = try value.integer(in: ValueRanges.hookQueue) }
        if let value = map["coalesce"] { hook.coalescesPerPath = try value.bool() }
        if let value = map["stdout"] {
            let text = try value.text(expecting: "discard, stderr or an absolute file path")
            switch text {
            case "discard": hook.standardOutput = .discard
            case "stderr": hook.standardOutput = .daemonStandardError
            case _ where text.hasPrefix("/"): hook.standardOutput = .file(Array(text.utf8))
            default: throw value.error("invalid value '\(text)'; write discard, stderr or an absolute file path")
            }
        }
        return hook
    }
}
