import Foundation

/// Values the grammar of docs/configuration.md refuses, and every config key with the kind of value it
/// takes: the bad-input corpus the config loader, `run`'s options and the real binary are
/// driven with. Each refusal must name the value and what is allowed, and nothing may trap.
public enum BadValueCorpus {
    public enum Kind: String, Sendable, CaseIterable {
        case size, duration, ratio, number, wholeNumber, bool
        /// A size or a share (`levels.free.*`, `--level-free`).
        case spaceThreshold

        /// Words every refusal of this kind contains: what is allowed.
        public var allowedPhrase: [String] {
            switch self {
            case .size: ["such as 500MB, 1.5GiB or 4096", " to "]
            case .duration: ["such as 500ms, 90s, 15m, 2h or 7d", " to "]
            case .ratio: ["write a number from", "or a percentage from"]
            case .number: ["write a whole or decimal number from"]
            case .wholeNumber: ["write a whole number from"]
            case .bool: ["write true or false"]
            case .spaceThreshold: ["write"]
            }
        }

        /// The largest value the grammar of this kind takes, which must load and run.
        public var largest: String {
            switch self {
            case .size, .spaceThreshold: "18446744073709551615"
            case .duration: "36500d"
            case .ratio: "100%"
            case .number, .wholeNumber: "1"
            case .bool: "true"
            }
        }
    }

    /// Refused by every numeric kind: what `Double(String)` and `Int(String)` would take,
    /// other scripts' digits, spaces, signs, separators, absurd lengths.
    public static let notNumbers: [String] = [
        "", "0x10", "0X1A", "0x1p-1", "inf", "-inf", "nan", "NaN", "Infinity", "1e400", "1E3", "+1", "-1", "-0",
        " 1", "1 ", "\t1", "٣", "１", "½", ".5", "1.", "1,5", "1_000", "1'000", "true", "١٠",
        String(repeating: "9", count: 400), "0." + String(repeating: "0", count: 400) + "1x",
    ]

    /// Refused for the kind beyond ``notNumbers``: units, ranges, precision, overflow.
    public static func kindSpecific(_ kind: Kind) -> [String] {
        switch kind {
        case .size:
            [
                "20XB", "10MBs", "1e3MB", "0x10MB", "-1MB", "0.4B", "18446744073709551616", "16384PiB", "17EB",
                "1h", "10 M B", "1.5.5GB",
            ]
        case .duration:
            [
                "90", "999999999999d", "106751991168d", "9223372036854775807ms", "36501d", "36500.5d", "0.0001ms",
                "0.4ms", "1h30m", "5 parsecs", "0x10s", "1e3s", "-5s", "+5s", "2 hours", "1y",
            ]
        case .ratio: ["1.5", "150%", "100.1%", "1e-1", "+0.5", "80%%", "0.8x", "2", "1e0"]
        case .number: ["1000001", "1e6", "0x1p-1", "+1.5", "1.5x", "1%"]
        case .wholeNumber: ["1.5", "1e3", "+64", "0x40", "64k", "9999999999999999999999"]
        case .bool: ["maybe", "1", "0", "TRUEE", "Y E S", "", "on1"]
        case .spaceThreshold: ["150%", "0x1p-1%", "1e3%", "-5%", "20XB", "10%%", "0.4B", "18446744073709551616"]
        }
    }

    /// Everything refused for `kind`.
    public static func refused(_ kind: Kind) -> [String] {
        kind == .bool ? kindSpecific(.bool) : notNumbers + kindSpecific(kind)
    }

    /// A config key: the YAML with `VALUE` where the value goes, the key's path as errors
    /// name it, and its kind.
    public struct ConfigKey: Sendable, CustomStringConvertible {
        public var template: String
        public var key: String
        public var kind: Kind
        public var description: String { key }

        /// The config with `value` in place, single-quoted so YAML keeps it as written.
        public func yaml(_ value: String) -> String {
            template.replacingOccurrences(
                of: "VALUE", with: "'" + value.replacingOccurrences(of: "'", with: "''") + "'")
        }
    }

    public static let configKeys: [ConfigKey] = {
        var keys: [ConfigKey] = []
        func add(_ template: String, _ key: String, _ kind: Kind) {
            keys.append(ConfigKey(template: template, key: key, kind: kind))
        }
        add("quotas:\n  - {path: 'a/*', limit: VALUE}\n", "quotas[0].limit", .size)
        add("quotas:\n  - {path: 'a/*', budget: VALUE}\n", "quotas[0].budget", .size)
        add("quotas:\n  - {path: 'a/*', limit: 1MB, warning: VALUE}\n", "quotas[0].warning", .ratio)
        add("quotas:\n  - {path: 'a/*', limit: 1MB, hysteresis: VALUE}\n", "quotas[0].hysteresis", .ratio)
        add("quotas:\n  - {path: 'a/*', limit: 1MB, protect: VALUE}\n", "quotas[0].protect", .bool)
        add("quotas:\n  - {path: 'a/*', budget: 1GB, weight: VALUE}\n", "quotas[0].weight", .number)
        add("quotas:\n  - {path: 'a/*', budget: 1GB, activity_weight: VALUE}\n", "quotas[0].activity_weight", .number)
        add("quotas:\n  - {path: 'a/*', budget: 1GB, weights: {'a/x': VALUE}}\n", "quotas[0].weights.a/x", .number)
        add("activity_half_life: VALUE\n", "activity_half_life", .duration)
        add("levels: {free: {warning: VALUE}}\n", "levels.free.warning", .spaceThreshold)
        add("levels: {free: {critical: [VALUE, 1GB]}}\n", "levels.free.critical[0]", .spaceThreshold)
        add("levels: {root: {warning: VALUE}}\n", "levels.root.warning", .size)
        add("levels: {root: {critical: VALUE}}\n", "levels.root.critical", .size)
        for level in ["normal", "warning", "critical"] {
            add("levels: {scale: {\(level): VALUE}}\n", "levels.scale.\(level)", .number)
            add("levels: {check: {\(level): VALUE}}\n", "levels.check.\(level)", .duration)
            add("periodic: {\(level): VALUE}\n", "periodic.\(level)", .duration)
        }
        add("levels: {step: VALUE}\n", "levels.step", .size)
        add("levels: {hysteresis: VALUE}\n", "levels.hysteresis", .ratio)
        add("leftovers: {age: VALUE}\n", "leftovers.age", .duration)
        add("leftovers:\n  rules:\n    - {name: cfnetwork-download, age: VALUE}\n", "leftovers.rules[0].age", .duration)
        add(
            "leftovers:\n  rules:\n    - {name: old, paths: ['x/*'], kind: older-than, age: VALUE}\n",
            "leftovers.rules[0].age", .duration)
        add("leftovers:\n  rules:\n    - {name: dyld-cache, keep: VALUE}\n", "leftovers.rules[0].keep", .wholeNumber)
        add(
            "leftovers:\n  rules:\n    - {name: big, paths: ['x/*'], kind: directory-over, limit: VALUE}\n",
            "leftovers.rules[0].limit", .size)
        add("leftovers:\n  rules:\n    - {name: dyld-cache, protect: VALUE}\n", "leftovers.rules[0].protect", .bool)
        add("forecast: {horizon: VALUE}\n", "forecast.horizon", .duration)
        add("forecast: {half_life: VALUE}\n", "forecast.half_life", .duration)
        add("forecast: {change: VALUE}\n", "forecast.change", .ratio)
        add("forecast: {min_interval: VALUE}\n", "forecast.min_interval", .duration)
        add("hooks:\n  - {command: [x], timeout: VALUE}\n", "hooks[0].timeout", .duration)
        add("hooks:\n  - {command: [x], rate_limit: VALUE}\n", "hooks[0].rate_limit", .duration)
        add("hooks:\n  - {command: [x], queue: VALUE}\n", "hooks[0].queue", .wholeNumber)
        add("hooks:\n  - {command: [x], coalesce: VALUE}\n", "hooks[0].coalesce", .bool)
        add("cleaners:\n  - {kind: evict, target: VALUE}\n", "cleaners[0].target", .ratio)
        add("cleaners:\n  - {kind: webkit-trim, limit: VALUE}\n", "cleaners[0].limit", .size)
        add("cleaners:\n  - {kind: expire, path: 'tmp/*', age: VALUE}\n", "cleaners[0].age", .duration)
        add("cleaners:\n  - {kind: command, command: [x], timeout: VALUE}\n", "cleaners[0].timeout", .duration)
        add("history: {sample_every: VALUE}\n", "history.sample_every", .duration)
        add("history: {keep: VALUE}\n", "history.keep", .duration)
        add("history: {max_size: VALUE}\n", "history.max_size", .size)
        add("history: {enabled: VALUE}\n", "history.enabled", .bool)
        return keys
    }()

    /// A config with every numeric key at the largest value its kind's grammar takes that
    /// the key allows: loading it, printing it and running with it must not trap.
    public static let largestConfig = """
        activity_half_life: 36500d
        quotas:
          - {path: 'a/*', limit: 18446744073709551615, warning: 100%, hysteresis: 100%}
          - {path: 'b/*', budget: 18446744073709551615, weight: 1000000, activity_weight: 1000000,
             weights: {'b/x': 1000000}, warning: 1, hysteresis: 0}
        levels:
          free: {warning: [100%, 18446744073709551615], critical: [100%, 18446744073709551615]}
          root: {warning: 18446744073709551615, critical: 18446744073709551615}
          scale: {normal: 10, warning: 10, critical: 10}
          check: {normal: 36500d, warning: 36500d, critical: 36500d}
          step: 18446744073709551615
          hysteresis: 100%
        leftovers:
          age: 36500d
          rules:
            - {name: dyld-cache, keep: 1000000}
            - {name: big, paths: ['x/*'], kind: directory-over, limit: 18446744073709551615}
            - {name: old, paths: ['y/*'], kind: older-than, age: 36500d}
        forecast: {horizon: 36500d, half_life: 36500d, change: 100%, min_interval: 36500d}
        hooks:
          - {command: [/bin/true], timeout: 36500d, rate_limit: 36500d, queue: 100000}
        cleaners:
          - leftovers
          - {kind: evict, target: 100%}
          - {kind: webkit-trim, limit: 18446744073709551615}
          - {kind: expire, path: 'tmp/*', age: 36500d}
        periodic: {normal: 36500d, warning: 36500d, critical: 36500d}
        history: {sample_every: 36500d, keep: 36500d, max_size: 18446744073709551615}

        """

    /// Every key at the smallest value it allows: the daemon must keep answering with it.
    public static let smallestConfig = """
        activity_half_life: 1ms
        quotas:
          - {path: 'a/*', limit: 0, warning: 0, hysteresis: 0}
          - {path: 'b/*', budget: 0, weight: 0, activity_weight: 0}
        levels:
          free: {warning: [0%, 0], critical: [0%, 0]}
          root: {warning: 0, critical: 0}
          scale: {normal: 0, warning: 0, critical: 0}
          check: {normal: 100ms, warning: 100ms, critical: 100ms}
          step: 4096
          hysteresis: 0
        leftovers:
          age: 1s
          rules:
            - {name: dyld-cache, keep: 0}
            - {name: big, paths: ['x/*'], kind: directory-over, limit: 0}
            - {name: old, paths: ['y/*'], kind: older-than, age: 1s}
        forecast: {horizon: 1ms, half_life: 1ms, change: 0, min_interval: 0s}
        hooks:
          - {command: [/bin/true], timeout: 1ms, rate_limit: 1ms, queue: 1}
        cleaners:
          - leftovers
          - {kind: evict, target: 1%}
          - {kind: webkit-trim, limit: 0}
          - {kind: expire, path: 'tmp/*', age: 1ms}
        periodic: {normal: 1s, warning: 1s, critical: 1s}
        history: {sample_every: 100ms, keep: 1m, max_size: 1MB}

        """
}
