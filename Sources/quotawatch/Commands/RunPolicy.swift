import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The policy `run` starts with and reloads on SIGHUP: the `--config` file, if any, with the
/// rule options merged over it.
enum RunPolicy {
    static let config = Option(
        "--config", value: "<file>",
        help: "Quotas, levels, leftovers and hooks from this YAML file (see check-config); SIGHUP reads it again.",
        .word)
    static let quota = Option(
        "--quota", value: "<glob=size>",
        help: "A quota for every directory matching the glob, such as 'Library/Caches/*=200MB' (repeatable).",
        .policy { word throws(CommandLinePolicy.OptionError) in try CommandLinePolicy.quota(word.bytes) })
    static let leftoverAfter = Option(
        "--leftover-after", value: "<duration>",
        help: "An idle download becomes a leftover after this long (default 1h).",
        .policyText { text throws(CommandLinePolicy.OptionError) in try CommandLinePolicy.leftoverAge(text) })
    static let levelFree = Option(
        "--level-free", value: "<warning,critical>",
        help: "Free-space thresholds of the disk levels: sizes or shares, such as 10%,5% or 5GB,1GB.",
        .policyText { text throws(CommandLinePolicy.OptionError) in try CommandLinePolicy.levelFree(text) })
    static let hook = Option(
        "--hook", value: "<events=command>",
        help: "Run a command for these events, such as 'quota_breach,level=notify-send QuotaWatch' (repeatable).",
        .policy { word throws(CommandLinePolicy.OptionError) in try CommandLinePolicy.hook(word.bytes) })
    static let declarations = [config.spec, quota.spec, leftoverAfter.spec, levelFree.spec, hook.spec]

    /// What the command line says about the policy, kept to be applied again on each reload.
    struct Options: Sendable {
        var file: [UInt8]?
        var overrides: CommandLinePolicy.Overrides

        init(_ arguments: ParsedArguments) throws(UsageError) {
            file = try arguments.value(RunPolicy.config)?.bytes
            overrides = CommandLinePolicy.Overrides(
                quotas: try arguments.values(RunPolicy.quota),
                leftoverAge: try arguments.value(RunPolicy.leftoverAfter),
                levelFree: try arguments.value(RunPolicy.levelFree), hooks: try arguments.values(RunPolicy.hook))
        }

        /// The file (read now) with the options merged over it. Rules that can never act are
        /// warned of on stderr, at the start and at each reload (``ConfigWarnings``).
        func build() throws(Failure) -> PolicyConfig {
            var config = PolicyConfig()
            if let file { config = try RunPolicy.read(file) }
            let merged = CommandLinePolicy.apply(overrides, over: config)
            for warning in ConfigWarnings.of(merged) { Log.warning("config: \(warning)") }
            return merged
        }
    }

    /// Why the policy could not be built.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// 65 for a bad config, 66 for an unreadable one.
        var status: ExitStatus
    }

    /// Reads and loads one config file, for `check-config`, at `run`'s start and at each
    /// SIGHUP; the loader's error names file, line and column. Only a regular file (or a
    /// symlink to one) of at most ``CheckConfigCommand/maximumBytes`` is read: a FIFO, a
    /// device or a directory is refused at once, naming what it is, instead of blocking.
    static func read(_ file: [UInt8]) throws(Failure) -> PolicyConfig {
        let name = EscapedName.string(file)
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(bytes: file, limit: CheckConfigCommand.maximumBytes)
        } catch .tooLarge {
            throw Failure(
                description:
                    "\(name): the file is larger than \(CheckConfigCommand.maximumBytes / (1 << 20)) MiB; is it a config?",
                status: CheckConfigCommand.invalid)
        } catch {
            throw Failure(
                description: "cannot read the config '\(name)': \(error); give a regular YAML file",
                status: CheckConfigCommand.unreadable)
        }
        do {
            return try PolicyConfigLoader.load(bytes, file: name)
        } catch {
            throw Failure(description: "\(error)", status: CheckConfigCommand.invalid)
        }
    }
}

extension ValueGrammar {
    /// As ``policy(_:)``, for a grammar that reads text: a word that is not UTF-8 is refused first.
    static func policyText(
        _ parse: @escaping @Sendable (String) throws(CommandLinePolicy.OptionError) -> Value
    ) -> Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do throws(CommandLinePolicy.OptionError) {
                return try parse(text)
            } catch {
                throw InvalidValue(message: error.description)
            }
        }
    }

    /// A value in one of QuotaWatchPolicy's grammars, refused in its words.
    static func policy(
        _ parse: @escaping @Sendable (CommandLineArgument) throws(CommandLinePolicy.OptionError) -> Value
    ) -> Self {
        Self { word, _ throws(InvalidValue) in
            do throws(CommandLinePolicy.OptionError) {
                return try parse(word)
            } catch {
                throw InvalidValue(message: error.description)
            }
        }
    }
}
