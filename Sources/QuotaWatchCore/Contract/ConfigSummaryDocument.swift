/// `check-config --json`: the effective rules of a config, every default filled in, as the CLI
/// writes them (`ConfigSummary.document`) and as a script reads them. Sizes are bytes,
/// durations seconds and ratios fractions, numbers as ``ContractNumber``; a setting that is
/// off or unset is written as null, not left out. Golden file `check-config`.
package struct ConfigSummaryDocument: Codable, Sendable, Equatable {
    package var profile: String
    package var quotas: [Quota]
    package var budgets: [Budget]
    package var activityHalfLife: ContractNumber
    package var levels: Levels
    package var leftovers: Leftovers
    package var forecast: Forecast
    package var hooks: [Hook]
    package var cleanup: Cleanup
    package var history: History

    package init(
        profile: String, quotas: [Quota], budgets: [Budget], activityHalfLife: ContractNumber, levels: Levels,
        leftovers: Leftovers, forecast: Forecast, hooks: [Hook], cleanup: Cleanup, history: History
    ) {
        self.profile = profile
        self.quotas = quotas
        self.budgets = budgets
        self.activityHalfLife = activityHalfLife
        self.levels = levels
        self.leftovers = leftovers
        self.forecast = forecast
        self.hooks = hooks
        self.cleanup = cleanup
        self.history = history
    }

    enum CodingKeys: String, CodingKey {
        case profile, quotas, budgets, levels, leftovers, forecast, hooks, cleanup, history
        case activityHalfLife = "activity_half_life"
    }

    /// A quota rule: its glob, its limit and its thresholds.
    package struct Quota: Codable, Sendable, Equatable {
        package var path: String
        package var limit: UInt64
        package var warning: ContractNumber
        package var hysteresis: ContractNumber
        package var size: String
        package var protect: Bool

        package init(
            path: String, limit: UInt64, warning: ContractNumber, hysteresis: ContractNumber, size: String,
            protect: Bool
        ) {
            self.path = path
            self.limit = limit
            self.warning = warning
            self.hysteresis = hysteresis
            self.size = size
            self.protect = protect
        }
    }

    /// A budget rule: shared among its members by weight and activity.
    package struct Budget: Codable, Sendable, Equatable {
        package var path: String
        package var budget: UInt64
        package var weight: ContractNumber
        /// Named members' base weights, by path (escaped as paths are).
        package var weights: [String: ContractNumber]
        package var activityWeight: ContractNumber
        package var warning: ContractNumber
        package var hysteresis: ContractNumber
        package var size: String
        package var protect: Bool

        package init(
            path: String, budget: UInt64, weight: ContractNumber, weights: [String: ContractNumber],
            activityWeight: ContractNumber, warning: ContractNumber, hysteresis: ContractNumber, size: String,
            protect: Bool
        ) {
            self.path = path
            self.budget = budget
            self.weight = weight
            self.weights = weights
            self.activityWeight = activityWeight
            self.warning = warning
            self.hysteresis = hysteresis
            self.size = size
            self.protect = protect
        }

        enum CodingKeys: String, CodingKey {
            case path, budget, weight, weights, warning, hysteresis, size, protect
            case activityWeight = "activity_weight"
        }
    }

    /// One value for each disk level.
    package struct PerLevel: Codable, Sendable, Equatable {
        package var normal: ContractNumber
        package var warning: ContractNumber
        package var critical: ContractNumber

        package init(normal: ContractNumber, warning: ContractNumber, critical: ContractNumber) {
            self.normal = normal
            self.warning = warning
            self.critical = critical
        }
    }

    /// A free-space line: `{"bytes":N}` or `{"share":F}`.
    package enum SpaceThreshold: Codable, Sendable, Equatable {
        case bytes(UInt64)
        case share(ContractNumber)

        enum CodingKeys: String, CodingKey { case bytes, share }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let bytes = try container.decodeIfPresent(UInt64.self, forKey: .bytes) {
                self = .bytes(bytes)
            } else {
                self = .share(try container.decode(ContractNumber.self, forKey: .share))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .bytes(let bytes): try container.encode(bytes, forKey: .bytes)
            case .share(let share): try container.encode(share, forKey: .share)
            }
        }
    }

    package struct Levels: Codable, Sendable, Equatable {
        package struct Free: Codable, Sendable, Equatable {
            package var warning: [SpaceThreshold]
            package var critical: [SpaceThreshold]

            package init(warning: [SpaceThreshold], critical: [SpaceThreshold]) {
                self.warning = warning
                self.critical = critical
            }
        }

        /// ROOT's own size lines; null when unset.
        package struct Root: Codable, Sendable, Equatable {
            package var warning: UInt64?
            package var critical: UInt64?

            package init(warning: UInt64?, critical: UInt64?) {
                self.warning = warning
                self.critical = critical
            }

            package func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(warning, forKey: .warning)
                try container.encode(critical, forKey: .critical)
            }
        }

        package var free: Free
        package var root: Root
        package var scale: PerLevel
        /// Seconds between free-space checks.
        package var check: PerLevel
        package var hysteresis: ContractNumber
        package var step: UInt64

        package init(
            free: Free, root: Root, scale: PerLevel, check: PerLevel, hysteresis: ContractNumber, step: UInt64
        ) {
            self.free = free
            self.root = root
            self.scale = scale
            self.check = check
            self.hysteresis = hysteresis
            self.step = step
        }
    }

    package struct Forecast: Codable, Sendable, Equatable {
        package var horizon: ContractNumber
        package var window: ContractNumber
        package var change: ContractNumber
        package var minimumInterval: ContractNumber

        package init(
            horizon: ContractNumber, window: ContractNumber, change: ContractNumber, minimumInterval: ContractNumber
        ) {
            self.horizon = horizon
            self.window = window
            self.change = change
            self.minimumInterval = minimumInterval
        }

        enum CodingKeys: String, CodingKey {
            case horizon, window, change
            case minimumInterval = "min_interval"
        }
    }

    package struct Hook: Codable, Sendable, Equatable {
        package var name: String
        /// The argv, each argument escaped as paths are.
        package var command: [String]
        /// The event kinds it hears, sorted; `["all"]` for every one.
        package var events: [String]
        package var timeout: ContractNumber
        /// Seconds between runs for one path; null when not limited.
        package var rateLimit: ContractNumber?
        package var queue: Int64
        package var coalesce: Bool

        package init(
            name: String, command: [String], events: [String], timeout: ContractNumber, rateLimit: ContractNumber?,
            queue: Int64, coalesce: Bool
        ) {
            self.name = name
            self.command = command
            self.events = events
            self.timeout = timeout
            self.rateLimit = rateLimit
            self.queue = queue
            self.coalesce = coalesce
        }

        enum CodingKeys: String, CodingKey {
            case name, command, events, timeout, queue, coalesce
            case rateLimit = "rate_limit"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(command, forKey: .command)
            try container.encode(events, forKey: .events)
            try container.encode(timeout, forKey: .timeout)
            try container.encode(rateLimit, forKey: .rateLimit)
            try container.encode(queue, forKey: .queue)
            try container.encode(coalesce, forKey: .coalesce)
        }
    }

    package struct History: Codable, Sendable, Equatable {
        package var enabled: Bool
        package var sampleEvery: ContractNumber
        package var keep: ContractNumber
        package var maximumBytes: UInt64

        package init(enabled: Bool, sampleEvery: ContractNumber, keep: ContractNumber, maximumBytes: UInt64) {
            self.enabled = enabled
            self.sampleEvery = sampleEvery
            self.keep = keep
            self.maximumBytes = maximumBytes
        }

        enum CodingKeys: String, CodingKey {
            case enabled, keep
            case sampleEvery = "sample_every"
            case maximumBytes = "max_size"
        }
    }
}
