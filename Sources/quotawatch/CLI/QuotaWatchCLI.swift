import QuotaWatchCore

/// The `quotawatch` command: parses the words, runs one subcommand, maps errors to exit codes.
enum QuotaWatchCLI {
    static let version = "0.1.0"

    static let subcommands: [Subcommand] = [
        ScanCommand.subcommand, RunCommand.subcommand, StatusCommand.subcommand, CheckConfigCommand.subcommand,
        CleanNowCommand.subcommand, CleanCommand.subcommand, HistoryCommand.subcommand, WatchCommand.subcommand,
        CompletionsCommand.subcommand,
    ]

    /// `help` is a word of its own, not a subcommand: it takes a subcommand's name, or `--man`.
    static let helpSubcommand = Subcommand(
        name: "help", abstract: "Show the help of a subcommand, or this tool's manual page with --man.",
        arguments: [
            ArgumentSpec(
                name: "subcommand", help: "The subcommand to explain.", isOptional: true, completion: .subcommands)
        ],
        options: HelpOptions.self, run: { _ throws(UsageError) in .success })

    /// `help [SUBCOMMAND] [--man]`.
    struct HelpOptions: CommandOptions {
        static let man = Flag("--man", help: "Print the manual page quotawatch(1) in roff (man -l -).")
        static let declarations = [man.spec]

        var man: Bool
        /// Words after the first are ignored, as they always were.
        var subcommand: String?

        init(_ arguments: ParsedArguments) {
            man = arguments[Self.man]
            subcommand = arguments.positionals.first?.text
        }
    }

    static func run(_ arguments: [CommandLineArgument]) -> ExitStatus {
        do {
            return try dispatch(arguments)
        } catch let error {
            Console.failure("\(error.message)")
            if let command = error.command, let subcommand = subcommands.first(where: { $0.name == command }) {
                Console.error(
                    "Usage: \(subcommand.usage)\n  See 'quotawatch \(command) --help' for more information.\n")
            } else {
                Console.error(
                    "Usage: quotawatch <subcommand> [options]\n  See 'quotawatch --help' for more information.\n")
            }
            return .usage
        }
    }

    private static func dispatch(_ arguments: [CommandLineArgument]) throws(UsageError) -> ExitStatus {
        guard let first = arguments.first?.text else {
            Console.error(Help.overview(subcommands))
            return .usage
        }
        switch first {
        case "--help", "-h":
            Console.out(Help.overview(subcommands))
            return .success
        case "--version":
            Console.out("quotawatch \(version)\n")
            return .success
        case "help":
            let help = try HelpOptions.parse(Array(arguments.dropFirst()), command: "help")
            if help.man {
                Console.out(ManualPage.render(subcommands, help: helpSubcommand, version: version))
                return .success
            }
            guard let name = help.subcommand else {
                Console.out(Help.overview(subcommands))
                return .success
            }
            if name == "help" {
                Console.out(Help.page(for: helpSubcommand))
                return .success
            }
            Console.out(Help.page(for: try subcommand(named: name)))
            return .success
        default:
            let subcommand = try subcommand(named: first)
            let rest = Array(arguments.dropFirst())
            if rest.contains(where: { $0.text == "--help" || $0.text == "-h" }) {
                Console.out(Help.page(for: subcommand))
                return .success
            }
            return try subcommand.execute(rest)
        }
    }

    /// The subcommand called `name`, or a usage error that suggests the nearest one.
    private static func subcommand(named name: String) throws(UsageError) -> Subcommand {
        if let found = subcommands.first(where: { $0.name == name }) { return found }
        var message = "Unknown subcommand '\(name)'"
        if let suggestion = Spelling.suggestion(for: name, among: subcommands.map(\.name) + ["help"]) {
            message += "; did you mean '\(suggestion)'?"
        }
        throw UsageError(message: message, command: nil)
    }
}

enum Help {
    static func overview(_ subcommands: [Subcommand]) -> String {
        var text = "OVERVIEW: Keep a directory tree's disk use in check as it happens.\n\n"
        text += "USAGE: quotawatch <subcommand> [options]\n\n"
        text += "OPTIONS:\n" + columns([("--help", "Show help information."), ("--version", "Show the version.")])
        text += "\nSUBCOMMANDS:\n" + columns(subcommands.map { ($0.name, $0.abstract) })
        text += "\n  See 'quotawatch help <subcommand>' for detailed help.\n"
        return text
    }

    static func page(for subcommand: Subcommand) -> String {
        var text = "OVERVIEW: \(subcommand.abstract)\n"
        if !subcommand.discussion.isEmpty { text += "\n\(subcommand.discussion)\n" }
        text += "\nUSAGE: \(subcommand.usage)\n"
        if !subcommand.arguments.isEmpty {
            text += "\nARGUMENTS:\n" + columns(subcommand.arguments.map { ("<\($0.name)>", $0.help) })
        }
        var options = subcommand.options.map { option in
            (option.name + (option.valueName.map { " \($0)" } ?? ""), option.help)
        }
        options.append(("-h, --help", "Show help information."))
        text += "\nOPTIONS:\n" + columns(options)
        return text
    }

    private static func columns(_ rows: [(String, String)]) -> String {
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 + "\n" }.joined()
    }
}
