import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// `quotawatch check-config FILE`: validates a config file and prints the rules in force.
enum CheckConfigCommand {
    /// The file is not a valid config (sysexits' EX_DATAERR).
    static let invalid = ExitStatus(rawValue: 65)
    /// The file cannot be read (sysexits' EX_NOINPUT).
    static let unreadable = ExitStatus(rawValue: 66)

    /// A config is a page or two; a larger file is a mistake, not a config.
    static let maximumBytes = 4 << 20

    static let subcommand = Subcommand(
        name: "check-config",
        abstract: "Validate a config file and print the rules it puts in force.",
        discussion: """
            Prints the quotas, budget groups, disk levels, leftover rules (the ios-sandbox
            profile's built-ins included), hooks and cleaners (in run order, with the periodic
            schedule, the app version and the protect globs), with every default filled in.
            Exit status: 0 when the file is valid, 65 when it is not (the error, with its line
            and column, goes to stderr), 66 when it cannot be read, 64 on bad usage.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The YAML config file.", completion: .files)],
        options: Options.self, run: run)

    static let json = Flag("--json", help: "Print the effective rules as one JSON object.")

    struct Options: CommandOptions {
        static let declarations = [CheckConfigCommand.json.spec]

        var file: CommandLineArgument
        var json: Bool

        init(_ arguments: ParsedArguments) throws(UsageError) {
            guard let file = try arguments.optional("file") else {
                throw UsageError(
                    message: "Name the config file: quotawatch check-config FILE", command: arguments.command)
            }
            self.file = file
            json = arguments[CheckConfigCommand.json]
        }
    }

    static func run(_ given: Options) -> ExitStatus {
        let file = given.file
        let config: PolicyConfig
        do {
            config = try RunPolicy.read(file.bytes)
        } catch {
            Console.failure("\(error.description)")
            return error.status
        }
        // Valid, but a rule that can never act: said on stderr, the exit status stays 0.
        for warning in ConfigWarnings.of(config) { Console.warning(warning) }
        if given.json {
            Console.json(ContractJSON.encodedString(ConfigSummary.document(config)) + "\n")
        } else {
            Console.out(ConfigSummary.table(config))
        }
        return .success
    }
}
