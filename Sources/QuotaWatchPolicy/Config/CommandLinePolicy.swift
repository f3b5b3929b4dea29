import QuotaWatchCore

/// The common cases of the configuration as `run` options, as a pure function of their
/// values: `--quota GLOB=SIZE`, `--leftover-after DURATION`, `--level-free WARNING,CRITICAL`
/// and `--hook EVENTS=COMMAND`.
public enum CommandLinePolicy {
    /// A bad option value: which option, which value, what is wrong and what is allowed.
    public struct OptionError: Error, Equatable, CustomStringConvertible {
        public var option: String
        public var value: String
        public var reason: String
        public var description: String {
            HumanText.escaped("invalid value '\(value)' for '\(option)': \(reason)")
        }
    }

    /// The option values as given, raw bytes where they may hold paths.
    public struct Options: Sendable, Equatable {
        public var quotas: [[UInt8]] = []
        public var leftoverAfter: String?
        public var levelFree: String?
        public var hooks: [[UInt8]] = []

        public init(
            quotas: [[UInt8]] = [], leftoverAfter: String? = nil, levelFree: String? = nil, hooks: [[UInt8]] = []
        ) {
            self.quotas = quotas
            self.leftoverAfter = leftoverAfter
            self.levelFree = levelFree
            self.hooks = hooks
        }
    }

    /// `base` with the options applied: quotas and hooks are added after the file's, the
    /// leftover age and free-space thresholds replace the file's.
    public static func apply(
        _ options: Options, over base: PolicyConfig = PolicyConfig()
    ) throws(OptionError)
        -> PolicyConfig
    {
        var config = base
        for word in options.quotas { config.quotas.append(try quota(word)) }
        if let text = options.leftoverAfter {
            do {
                config.leftovers.age = try TimeSpan(parsing: text, in: ValueRanges.leftoverAge).duration
            } catch {
                throw OptionError(option: "--leftover-after", value: text, reason: error.description)
            }
        }
        if let text = options.levelFree {
            let (warning, critical) = try levelFree(text)
            config.levels.freeWarning = [warning]
            config.levels.freeCritical = [critical]
        }
        for word in options.hooks {
            config.hooks.append(try hook(word, number: config.hooks.count + 1))
        }
        return config
    }

    /// `GLOB=SIZE`, split at the last `=` (a size never holds one; a glob may).
    static func quota(_ word: [UInt8]) throws(OptionError) -> QuotaRule {
        let text = HumanText.name(word)
        func fail(_ reason: String) -> OptionError { OptionError(option: "--quota", value: text, reason: reason) }
        guard let equals = word.lastIndex(of: UInt8(ascii: "=")) else {
            throw fail("expected GLOB=SIZE, such as 'Library/Caches/*=200MB'")
        }
        let glob: PathGlob
        do {
            glob = try PathGlob(bytes: Array(word[..<equals]))
        } catch {
            throw fail(error.description)
        }
        let sizeText = String(decoding: word[(equals + 1)...], as: UTF8.self)
        do {
            return QuotaRule(glob: glob, limit: try ByteCount(parsing: sizeText).bytes)
        } catch {
            throw fail(error.description)
        }
    }

    /// `WARNING,CRITICAL`, each a size or a share: `10%,5%` or `5GB,1GB`.
    static func levelFree(_ text: String) throws(OptionError) -> (SpaceThreshold, SpaceThreshold) {
        func fail(_ reason: String) -> OptionError { OptionError(option: "--level-free", value: text, reason: reason) }
        // Spaces after the comma are the list's, not the values'.
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimming(" ") }
        guard parts.count == 2 else {
            throw fail("expected WARNING,CRITICAL, each a size or a share, such as 10%,5% or 5GB,1GB")
        }
        var thresholds: [SpaceThreshold] = []
        for part in parts {
            do {
                thresholds.append(try SpaceThresholdText.parse(part))
            } catch {
                throw fail(error.description)
            }
        }
        return (thresholds[0], thresholds[1])
    }

    /// `EVENTS=COMMAND`: EVENTS comma-separated kinds or `all`; COMMAND split on spaces into
    /// argv (no quoting; write a script for anything more).
    static func hook(_ word: [UInt8], number: Int) throws(OptionError) -> HookSpec {
        let text = HumanText.name(word)
        func fail(_ reason: String) -> OptionError { OptionError(option: "--hook", value: text, reason: reason) }
        guard let equals = word.firstIndex(of: UInt8(ascii: "=")) else {
            throw fail("expected EVENTS=COMMAND, such as 'quota_breach,level=notify-send QuotaWatch'")
        }
        let eventsText = String(decoding: word[..<equals], as: UTF8.self)
        let events: Set<String>
        do {
            events = try HookEventNames.parse(eventsText.split(separator: ",").map { String($0) })
        } catch {
            throw fail(error.description)
        }
        let argv = word[(equals + 1)...].split(separator: UInt8(ascii: " ")).map { Array($0) }
        guard !argv.isEmpty else { throw fail("the command is empty; write EVENTS=COMMAND") }
        return HookSpec(name: "hook-\(number)", command: argv, events: events)
    }
}

/// A size or a share, as thresholds of free space are written: "5GB" or "10%".
public enum SpaceThresholdText {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String) throws(ParseError) -> SpaceThreshold {
        if text.hasSuffix("%") {
            do {
                return .share(try ShareText.parse(text))
            } catch {
                throw ParseError(description: error.description)
            }
        }
        do {
            return .bytes(try ByteCount(parsing: text).bytes)
        } catch {
            throw ParseError(description: error.description + ", or a share such as 10%")
        }
    }
}

/// Event kinds as hooks list them.
public enum HookEventNames {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var name: String
        public var description: String {
            (name.isEmpty ? "no event is named" : "unknown event '\(name)'") + "; expected 'all' or any of "
                + PolicyEvent.kinds.joined(separator: ", ")
        }
    }

    /// The set of kinds; empty (every kind) for `all`.
    public static func parse(_ names: [String]) throws(ParseError) -> Set<String> {
        if names.isEmpty { throw ParseError(name: "") }
        var kinds: Set<String> = []
        for name in names {
            let trimmed = name.trimming(" \t")
            if trimmed == "all" { return [] }
            guard PolicyEvent.kinds.contains(trimmed) else { throw ParseError(name: trimmed) }
            kinds.insert(trimmed)
        }
        return kinds
    }
}
