import QuotaWatchCore
import QuotaWatchPolicy

/// The common cases of the configuration as `run` options: the grammar of each value
/// (`--quota GLOB=SIZE`, `--leftover-after DURATION`, `--level-free WARNING,CRITICAL`,
/// `--hook EVENTS=COMMAND`), which the command line's one parser reads them in, and how the
/// values read are merged over a loaded config.
package enum CommandLinePolicy {
    /// A bad option value: which option, which value, what is wrong and what is allowed.
    package struct OptionError: Error, Equatable, CustomStringConvertible {
        package var option: String
        package var value: String
        package var reason: String
        package var description: String {
            HumanText.escaped("invalid value '\(value)' for '\(option)': \(reason)")
        }
    }

    /// `--level-free`'s two thresholds.
    package struct LevelFree: Sendable, Hashable {
        package var warning: SpaceThreshold
        package var critical: SpaceThreshold
    }

    /// A `--hook` as given: it is named (`hook-N`) when applied, after the config's hooks.
    package struct HookCommand: Sendable, Hashable {
        /// Empty for every kind.
        package var events: Set<String>
        package var command: [[UInt8]]
    }

    /// The option values, each already read in its grammar.
    package struct Overrides: Sendable, Equatable {
        package var quotas: [QuotaRule]
        package var leftoverAge: Duration?
        package var levelFree: LevelFree?
        package var hooks: [HookCommand]

        package init(
            quotas: [QuotaRule] = [], leftoverAge: Duration? = nil, levelFree: LevelFree? = nil,
            hooks: [HookCommand] = []
        ) {
            self.quotas = quotas
            self.leftoverAge = leftoverAge
            self.levelFree = levelFree
            self.hooks = hooks
        }
    }

    /// `base` with the options applied: quotas and hooks are added after the file's, the
    /// leftover age and free-space thresholds replace the file's.
    package static func apply(_ overrides: Overrides, over base: PolicyConfig = PolicyConfig()) -> PolicyConfig {
        var config = base
        config.quotas += overrides.quotas
        if let age = overrides.leftoverAge { config.leftovers.age = age }
        if let levelFree = overrides.levelFree {
            config.levels.freeWarning = [levelFree.warning]
            config.levels.freeCritical = [levelFree.critical]
        }
        for hook in overrides.hooks {
            config.hooks.append(
                HookSpec(name: "hook-\(config.hooks.count + 1)", command: hook.command, events: hook.events))
        }
        return config
    }

    /// A duration of at least ``ValueRanges/leftoverAge``.
    package static func leftoverAge(_ text: String) throws(OptionError) -> Duration {
        do {
            return try TimeSpan(parsing: text, in: ValueRanges.leftoverAge).duration
        } catch {
            throw OptionError(option: "--leftover-after", value: text, reason: error.description)
        }
    }

    /// `GLOB=SIZE`, split at the last `=` (a size never holds one; a glob may).
    package static func quota(_ word: [UInt8]) throws(OptionError) -> QuotaRule {
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
    package static func levelFree(_ text: String) throws(OptionError) -> LevelFree {
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
        return LevelFree(warning: thresholds[0], critical: thresholds[1])
    }

    /// `EVENTS=COMMAND`: EVENTS comma-separated kinds or `all`; COMMAND split on spaces into
    /// argv (no quoting; write a script for anything more).
    package static func hook(_ word: [UInt8]) throws(OptionError) -> HookCommand {
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
        return HookCommand(events: events, command: argv)
    }
}
