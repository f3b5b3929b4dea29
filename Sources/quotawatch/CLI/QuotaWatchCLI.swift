/// The `quotawatch` command: parses the words, runs one subcommand, maps errors to exit codes.
enum QuotaWatchCLI {
    static let version = "0.1.0"

    static let subcommands: [Subcommand] = [
        ScanCommand.subcommand, RunCommand.subcommand, StatusCommand.subcommand, CheckConfigCommand.subcommand,
        CleanNowCommand.subcommand, CleanCommand.subcommand, HistoryCommand.subcommand, WatchCommand.subcommand,
    ]

    static func run(_ arguments: [CommandLineArgument]) -> ExitStatus {
        do {
            return try dispatch(arguments)
        } catch let error {
            Console.error("Error: \(error.message)\n")
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
            guard let name = arguments.dropFirst().first?.text else {
                Console.out(Help.overview(subcommands))
                return .success
            }
            guard let subcommand = subcommands.first(where: { $0.name == name }) else {
                throw UsageError(message: "Unknown subcommand '\(name)'", command: nil)
            }
            Console.out(Help.page(for: subcommand))
            return .success
        default:
            guard let subcommand = subcommands.first(where: { $0.name == first }) else {
                throw UsageError(message: "Unknown subcommand '\(first)'", command: nil)
            }
            let rest = Array(arguments.dropFirst())
            if rest.contains(where: { $0.text == "--help" || $0.text == "-h" }) {
                Console.out(Help.page(for: subcommand))
                return .success
            }
            let parsed = try ParsedArguments(rest, options: subcommand.options, command: subcommand.name)
            return try subcommand.run(parsed)
        }
    }
}

/// A subcommand: its help and how to run it with parsed arguments.
struct Subcommand: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [ArgumentSpec]
    var options: [OptionSpec]
    var run: @Sendable (ParsedArguments) throws(UsageError) -> ExitStatus

    var usage: String {
        var words = ["quotawatch", name]
        words += arguments.map { $0.isOptional ? "[<\($0.name)>]" : "<\($0.name)>" }
        words += options.map { option in "[\(option.name)\(option.valueName.map { " \($0)" } ?? "")]" }
        return words.joined(separator: " ")
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
