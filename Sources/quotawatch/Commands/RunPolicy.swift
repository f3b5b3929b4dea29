import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The policy `run` starts with and reloads on SIGHUP: the `--config` file, if any, with the
/// rule options merged over it.
enum RunPolicy {
    static let options = [
        OptionSpec(
            name: "--config", valueName: "<file>",
            help: "Quotas, levels, leftovers and hooks from this YAML file (see check-config); SIGHUP reads it again."
        ),
        OptionSpec(
            name: "--quota", valueName: "<glob=size>",
            help: "A quota for every directory matching the glob, such as 'Library/Caches/*=200MB' (repeatable)."),
        OptionSpec(
            name: "--leftover-after", valueName: "<duration>",
            help: "An idle download becomes a leftover after this long (default 1h)."),
        OptionSpec(
            name: "--level-free", valueName: "<warning,critical>",
            help: "Free-space thresholds of the disk levels: sizes or shares, such as 10%,5% or 5GB,1GB."),
        OptionSpec(
            name: "--hook", valueName: "<events=command>",
            help: "Run a command for these events, such as 'quota_breach,level=notify-send QuotaWatch' (repeatable)."),
    ]

    /// Why the policy could not be built.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// 65 for a bad config, 66 for an unreadable one, 64 for a bad option.
        var status: ExitStatus
    }

    /// What the command line says about the policy, kept to be applied again on each reload.
    struct Source: Sendable {
        var file: [UInt8]?
        var options: CommandLinePolicy.Options

        init(_ arguments: ParsedArguments) {
            file = arguments.values["--config"]?.bytes
            options = CommandLinePolicy.Options(
                quotas: arguments.allValues["--quota"]?.map(\.bytes) ?? [],
                leftoverAfter: arguments.values["--leftover-after"]?.text,
                levelFree: arguments.values["--level-free"]?.text,
                hooks: arguments.allValues["--hook"]?.map(\.bytes) ?? [])
        }

        /// The file (read now) with the options merged over it.
        func build() throws(Failure) -> PolicyConfig {
            var config = PolicyConfig()
            if let file { config = try RunPolicy.read(file) }
            do {
                return try CommandLinePolicy.apply(options, over: config)
            } catch {
                throw Failure(description: error.description, status: .usage)
            }
        }
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
