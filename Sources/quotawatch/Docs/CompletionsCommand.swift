import Foundation
import QuotaWatchCore

/// `quotawatch completions bash|zsh`: a completion script made from the subcommands' own
/// options, so it never offers an option the parser would reject.
enum CompletionsCommand {
    static let shells = Shell.allCases.map(\.rawValue)

    static let subcommand = Subcommand(
        name: "completions",
        abstract: "Print a shell completion script for bash or zsh.",
        discussion: """
            bash: save it as ~/.local/share/bash-completion/completions/quotawatch (or source it from
            ~/.bashrc). zsh: save it as _quotawatch in a directory of $fpath. scripts/install puts both
            where the shells look for them.
            """,
        arguments: [ArgumentSpec(name: "shell", help: "bash or zsh.", completion: .words(shells))],
        options: Options.self,
        run: { given throws(UsageError) in
            let commands = QuotaWatchCLI.subcommands + [QuotaWatchCLI.helpSubcommand]
            switch given.shell {
            case .bash: Console.out(bash(commands))
            case .zsh: Console.out(zsh(commands))
            }
            return .success
        })

    enum Shell: String, Sendable, CaseIterable {
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
        let names = commands.map(\.name).joined(separator: " ")
        var script = "# bash completion for quotawatch, made by 'quotawatch completions bash'.\n"
        script += "_quotawatch() {\n"
        script += "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        script += "    if ((COMP_CWORD == 1)); then\n"
        script +=
            "        COMPREPLY=($(compgen -W \"\(names) --help --version\" -- \"$cur\"))\n        return\n    fi\n"
        // Each subcommand's options, and what its positional argument completes to.
        script += "    local options=\"\" positional=\"-d\" words=\"\"\n    case \"${COMP_WORDS[1]}\" in\n"
        for command in commands {
            let options = command.options.map(\.name) + ["--help"]
            script += "    \(command.name)) options=\"\(options.joined(separator: " "))\""
            switch command.arguments.first?.completion ?? .nothing {
            case .files: script += " positional=\"-f\""
            case .directories: break
            case .nothing: script += " positional=\"\""
            case .words(let words): script += " words=\"\(words.joined(separator: " "))\""
            case .subcommands: script += " words=\"\(names)\""
            }
            script += " ;;\n"
        }
        script += "    esac\n"
        // An option's value: its grammar's words, a path, or nothing to offer.
        script += "    case \"${COMP_WORDS[1]} $prev\" in\n"
        for command in commands {
            for option in command.options where option.valueName != nil {
                script += "    \"\(command.name) \(option.name)\") "
                switch option.completion {
                case .nothing: script += "COMPREPLY=()"
                case .files: script += "COMPREPLY=($(compgen -f -- \"$cur\"))"
                case .directories: script += "COMPREPLY=($(compgen -d -- \"$cur\"))"
                case .words(let words):
                    script += "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
                case .subcommands: script += "COMPREPLY=($(compgen -W \"\(names)\" -- \"$cur\"))"
                }
                script += "; return ;;\n"
            }
        }
        script += "    esac\n"
        script += "    if [[ \"$cur\" == -* ]]; then\n"
        script += "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
        script += "    elif [[ -n \"$words\" ]]; then\n"
        script += "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
        script += "    elif [[ -n \"$positional\" ]]; then\n"
        script += "        COMPREPLY=($(compgen \"$positional\" -- \"$cur\"))\n"
        script += "    else\n        COMPREPLY=()\n    fi\n}\n"
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
                if let value = option.valueName {
                    spec += ":" + bracketSafe(value) + ":" + zshAction(option.completion, commands)
                }
                script += " \\\n            " + quoted(spec)
            }
            script += " \\\n            " + quoted("--help[Show help information.]")
            if let argument = command.arguments.first {
                let spec = "1:" + bracketSafe(argument.name) + ":" + zshAction(argument.completion, commands)
                script += " \\\n            " + quoted(spec)
            }
            script += "\n        ;;\n"
        }
        script += "    esac\n}\n_quotawatch \"$@\"\n"
        return script
    }

    /// What `_arguments` runs to complete a value.
    private static func zshAction(_ completion: ValueCompletion, _ commands: [Subcommand]) -> String {
        switch completion {
        case .nothing: " "
        case .files: "_files"
        case .directories: "_files -/"
        case .words(let words): "(" + words.joined(separator: " ") + ")"
        case .subcommands: "(" + commands.map(\.name).joined(separator: " ") + ")"
        }
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
