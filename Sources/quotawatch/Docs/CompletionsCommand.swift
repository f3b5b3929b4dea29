import Foundation
import QuotaWatchCore

/// `quotawatch completions bash|zsh`: a completion script made from the subcommands' own
/// options, so it never offers an option the parser would reject.
enum CompletionsCommand {
    static let shells = ["bash", "zsh"]

    static let subcommand = Subcommand(
        name: "completions",
        abstract: "Print a shell completion script for bash or zsh.",
        discussion: """
            bash: save it as ~/.local/share/bash-completion/completions/quotawatch (or source it from
            ~/.bashrc). zsh: save it as _quotawatch in a directory of $fpath. scripts/install puts both
            where the shells look for them.
            """,
        arguments: [ArgumentSpec(name: "shell", help: "bash or zsh.")],
        options: Options.self,
        run: { given throws(UsageError) in
            let commands = QuotaWatchCLI.subcommands + [QuotaWatchCLI.helpSubcommand]
            switch given.shell {
            case .bash: Console.out(bash(commands))
            case .zsh: Console.out(zsh(commands))
            }
            return .success
        })

    enum Shell: String, Sendable {
        case bash, zsh
    }

    /// `completions SHELL`: no options, one shell.
    struct Options: CommandOptions {
        static let declarations: [OptionSpec] = []

        var shell: Shell

        init(_ arguments: ParsedArguments) throws(UsageError) {
            guard arguments.positionals.count == 1, let word = arguments.positionals.first else {
                throw UsageError(message: "Name one shell: bash or zsh", command: arguments.command)
            }
            guard let shell = Shell(rawValue: word.text) else {
                throw UsageError(
                    message: "Unknown shell '\(HumanText.name(word.bytes))'; the shells are bash and zsh",
                    command: arguments.command)
            }
            self.shell = shell
        }
    }

    static func bash(_ commands: [Subcommand]) -> String {
        var script = "# bash completion for quotawatch, made by 'quotawatch completions bash'.\n"
        script += "_quotawatch() {\n"
        script += "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        script += "    if ((COMP_CWORD == 1)); then\n"
        script += "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) --help --version\" "
        script += "-- \"$cur\"))\n        return\n    fi\n"
        script += "    local options=\"\" valued=\"\"\n    case \"${COMP_WORDS[1]}\" in\n"
        for command in commands {
            let options = command.options.map(\.name) + ["--help"]
            let valued = command.options.filter { $0.valueName != nil }.map(\.name)
            script += "    \(command.name)) options=\"\(options.joined(separator: " "))\" "
            script += "valued=\" \(valued.joined(separator: " ")) \" ;;\n"
        }
        script += "    esac\n"
        script += "    if [[ \"$valued\" == *\" $prev \"* ]]; then\n"
        script += "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        script += "    elif [[ \"$cur\" == -* ]]; then\n"
        script += "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
        script += "    elif [[ \"${COMP_WORDS[1]}\" == help || \"${COMP_WORDS[1]}\" == completions ]]; then\n"
        script += "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) "
        script += "\(CompletionsCommand.shells.joined(separator: " "))\" -- \"$cur\"))\n"
        script += "    else\n        COMPREPLY=($(compgen -d -- \"$cur\"))\n    fi\n}\n"
        script += "complete -o filenames -F _quotawatch quotawatch\n"
        return script
    }

    static func zsh(_ commands: [Subcommand]) -> String {
        var script = "#compdef quotawatch\n# zsh completion for quotawatch, made by 'quotawatch completions zsh'.\n"
        script += "_quotawatch() {\n    local -a subcommands\n    subcommands=(\n"
        for command in commands {
            script +=
                "        \(quoted(command.name + ":" + command.abstract.replacingOccurrences(of: ":", with: "\\:")))\n"
        }
        script +=
            "    )\n    if ((CURRENT == 2)); then\n        _describe 'subcommand' subcommands\n        return\n    fi\n"
        script += "    case $words[2] in\n"
        for command in commands {
            script += "    \(command.name))\n        _arguments"
            for option in command.options {
                var spec = option.name + "[" + bracketSafe(option.help) + "]"
                if let value = option.valueName { spec += ":" + bracketSafe(value) + ":_files" }
                script += " \\\n            " + quoted(spec)
            }
            script += " \\\n            " + quoted("--help[Show help information.]")
            let positional = command.name == "help" || command.name == "completions" ? "_describe" : "_files -/"
            script += positional == "_files -/" ? " \\\n            '*:root:_files -/'\n" : "\n"
            script += "        ;;\n"
        }
        script += "    esac\n}\n_quotawatch \"$@\"\n"
        return script
    }

    /// A zsh word in single quotes.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `_arguments` reads brackets and colons in a description as its own syntax.
    private static func bracketSafe(_ text: String) -> String {
        text.replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
            .replacingOccurrences(of: ":", with: "\\:")
    }
}
