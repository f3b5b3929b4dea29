import QuotaWatchCore

/// A usage mistake: printed with the subcommand's usage line, exit status 64.
struct UsageError: Error, Equatable {
    /// One line: an argument it quotes is escaped as every human output escapes names
    /// (``HumanText``), so a bad argument cannot break the line or reach the terminal raw.
    var message: String
    var command: String?

    init(message: String, command: String?) {
        self.message = HumanText.escaped(message)
        self.command = command
    }
}

/// The words of one subcommand's invocation, sorted into options and positionals against
/// the subcommand's declarations. Options are read back only through their declarations
/// (`arguments[flag]`, `arguments.value(option)`), each value in its own grammar.
struct ParsedArguments {
    let command: String
    private let declared: [OptionSpec]
    /// The declarations read back so far, shared by copies: one declared but never read would
    /// be accepted and then ignored.
    private let reads = ReadDeclarations()
    private var flags: Set<String> = []
    /// Every word given to each option that takes a value, in order.
    private var words: [String: [CommandLineArgument]] = [:]
    var positionals: [CommandLineArgument] = []

    /// Parses `arguments` against `options`. `--name=value` and `--name value` both work;
    /// `--` ends the options. Two declarations of one name are refused: the second could
    /// never be reached.
    init(_ arguments: [CommandLineArgument], options: [OptionSpec], command: String) throws(UsageError) {
        self.command = command
        declared = options
        if let duplicate = OptionSpec.firstDuplicate(in: options) {
            throw UsageError(
                message: "Option '\(duplicate)' is declared twice for '\(command)'; this is a bug in quotawatch",
                command: command)
        }
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let text = argument.text
            if onlyPositionals || !text.hasPrefix("-") || text == "-" {
                positionals.append(argument)
                continue
            }
            if text == "--" {
                onlyPositionals = true
                continue
            }
            var name = text
            var inlineValue: CommandLineArgument?
            if let equals = argument.bytes.firstIndex(of: UInt8(ascii: "=")) {
                name = String(decoding: argument.bytes[..<equals], as: UTF8.self)
                inlineValue = CommandLineArgument(bytes: Array(argument.bytes[(equals + 1)...]))
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                var message = "Unknown option '\(name)'"
                if let suggestion = Spelling.suggestion(for: name, among: options.map(\.name) + ["--help"]) {
                    message += "; did you mean '\(suggestion)'?"
                }
                throw UsageError(message: message, command: command)
            }
            guard let valueName = spec.valueName else {
                if inlineValue != nil {
                    throw UsageError(message: "Option '\(name)' takes no value", command: command)
                }
                flags.insert(name)
                continue
            }
            if let inlineValue {
                words[name, default: []].append(inlineValue)
            } else if index < arguments.count {
                words[name, default: []].append(arguments[index])
                index += 1
            } else {
                throw UsageError(message: "Missing value for option '\(name) \(valueName)'", command: command)
            }
        }
    }

    /// Whether the flag was given.
    subscript(flag: Flag) -> Bool {
        checkDeclared(flag.spec)
        return flags.contains(flag.spec.name)
    }

    /// The last value given to `option`, nil when it was not given. Every value given is
    /// checked, so a bad one is refused even when a later one would win.
    func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        try values(option).last
    }

    /// Every value given to a repeatable option, in order.
    func values<Value>(_ option: Option<Value>) throws(UsageError) -> [Value] {
        checkDeclared(option.spec)
        var parsed: [Value] = []
        for word in words[option.spec.name] ?? [] {
            do {
                parsed.append(try option.grammar.parse(word, option.spec.name))
            } catch {
                throw UsageError(message: error.message, command: command)
            }
        }
        return parsed
    }

    /// Whether the option, flag or valued, appears on the command line.
    func isGiven(_ spec: OptionSpec) -> Bool {
        flags.contains(spec.name) || words[spec.name] != nil
    }

    /// The names of those of `specs` that were given, in their order.
    func given(among specs: [OptionSpec]) -> [String] {
        specs.filter(isGiven).map(\.name)
    }

    /// The one positional named `name`: missing or followed by another is a usage error.
    func single(_ name: String) throws(UsageError) -> CommandLineArgument {
        guard let first = try optional(name) else {
            throw UsageError(message: "Missing expected argument '<\(name)>'", command: command)
        }
        return first
    }

    /// One positional or more, each named `name`: none is a usage error.
    func oneOrMore(_ name: String) throws(UsageError) -> [CommandLineArgument] {
        guard !positionals.isEmpty else {
            throw UsageError(message: "Missing expected argument '<\(name)>'", command: command)
        }
        return positionals
    }

    /// At most one positional; a second is a usage error.
    func optional(_ name: String) throws(UsageError) -> CommandLineArgument? {
        if positionals.count > 1 {
            throw UsageError(message: "Unexpected argument '\(positionals[1].shown)'", command: command)
        }
        return positionals.first
    }

    /// The declared options no read has asked for (``isGiven(_:)`` does not count).
    var unreadDeclarations: [String] { declared.map(\.name).filter { !reads.names.contains($0) } }

    /// Reading an option the subcommand does not declare is a bug: it could never be given.
    private func checkDeclared(_ spec: OptionSpec) {
        assert(
            declared.contains { $0.name == spec.name }, "'\(spec.name)' is read by '\(command)' but not declared by it")
        reads.names.insert(spec.name)
    }
}

/// The names ``ParsedArguments`` has been asked for.
private final class ReadDeclarations {
    var names: Set<String> = []
}

extension OptionSpec {
    /// The first name declared twice in `specs`, if any.
    static func firstDuplicate(in specs: [OptionSpec]) -> String? {
        var seen: Set<String> = ["--help", "-h"]
        for spec in specs where !seen.insert(spec.name).inserted { return spec.name }
        return nil
    }
}
