import QuotaWatchCore

/// Everything the policy layer is configured with, from a YAML file, the command line, or
/// both (the command line's values are merged over the file's).
package struct PolicyConfig: Sendable, Equatable {
    package var profile: ProfileChoice = .auto
    package var quotas: [QuotaRule] = []
    package var budgets: [BudgetRule] = []
    package var levels = LevelPolicy()
    package var leftovers = LeftoverSettings()
    package var forecast = ForecastSettings()
    /// The half-life of the write activity that weighs budget shares.
    package var activityHalfLife: Duration = .seconds(600)
    package var hooks: [HookSpec] = []
    /// `roots:`: the directories `run` serves when given no ROOT, as absolute paths or globs
    /// (`/home/*`), each with its own config file or this one's rules.
    package var roots: [RootPattern] = []
    /// `cleaners:`, `periodic:`, `app_version:`, `protect:` (see ``CleanupSettings``).
    package var cleanup = CleanupSettings()
    /// `history:` (see ``HistoryConfig``).
    package var history = HistoryConfig()

    package init() {}

    /// The leftover rules in force: the profile's built-ins when it applies (each possibly
    /// overridden by a configured rule of the same name), then the configured rules, minus
    /// those disabled.
    package func effectiveLeftoverRules(profileApplies: Bool) -> [LeftoverRule] {
        var rules: [LeftoverRule] = []
        if profileApplies {
            for builtIn in IOSSandboxProfile.rules(age: leftovers.age) {
                rules.append(leftovers.rules.first { $0.name == builtIn.name } ?? builtIn)
            }
        }
        for rule in leftovers.rules where !rules.contains(where: { $0.name == rule.name }) {
            let isBuiltInName = IOSSandboxProfile.rules(age: leftovers.age).contains { $0.name == rule.name }
            if !isBuiltInName || profileApplies { rules.append(rule) }
        }
        return rules.filter { !leftovers.disabled.contains($0.name) }
    }
}

/// The `leftovers:` section.
package struct LeftoverSettings: Sendable, Hashable {
    /// How long an idle download (and a temporary plist) waits before it is a leftover.
    package var age: Duration = .seconds(3600)
    /// Configured rules: new ones, or overrides of built-ins by name.
    package var rules: [LeftoverRule] = []
    /// Names of rules turned off.
    package var disabled: Set<String> = []

    package init() {}
}

/// One item of a config's `roots:` list.
package struct RootPattern: Sendable, Equatable {
    /// An absolute path whose components may hold `*`, `?` and `[...]` (`/home/*`).
    package var pattern: [UInt8]
    /// The config file of the roots it matches; nil for the file that lists it.
    package var config: [UInt8]?

    package init(pattern: [UInt8], config: [UInt8]? = nil) {
        self.pattern = pattern
        self.config = config
    }

    /// True when some component is a glob, so that directories made later may match.
    package var isGlob: Bool { Self.isGlob(pattern) }

    /// True when `text` (a pattern or one of its components) holds `*`, `?` or `[`.
    package static func isGlob(_ text: some Collection<UInt8>) -> Bool {
        text.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }
    }
}
