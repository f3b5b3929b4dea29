import QuotaWatchCore

/// An option a subcommand accepts.
struct OptionSpec: Sendable {
    var name: String
    /// The placeholder shown in help when the option takes a value, such as "<n>".
    var valueName: String?
    var help: String
}

/// A positional argument a subcommand accepts.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
}

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

/// The words of one subcommand's invocation, sorted into options and positionals.
struct ParsedArguments {
    var flags: Set<String> = []
    /// The last value of each option given a value.
    var values: [String: CommandLineArgument] = [:]
    /// Every value of each option, in order, for options that may be repeated.
    var allValues: [String: [CommandLineArgument]] = [:]
    var positionals: [CommandLineArgument] = []

    /// Parses `arguments` against `options`. `--name=value` and `--name value` both work;
    /// `--` ends the options.
    init(_ arguments: [CommandLineArgument], options: [OptionSpec], command: String) throws(UsageError) {
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
            if spec.valueName == nil {
                if inlineValue != nil {
                    throw UsageError(message: "Option '\(name)' takes no value", command: command)
                }
                flags.insert(name)
            } else if let inlineValue {
                values[name] = inlineValue
                allValues[name, default: []].append(inlineValue)
            } else if index < arguments.count {
                values[name] = arguments[index]
                allValues[name, default: []].append(arguments[index])
                index += 1
            } else {
                throw UsageError(message: "Missing value for option '\(name) \(spec.valueName!)'", command: command)
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// A whole number option within `range`, or `defaultValue` when absent.
    func integer(
        _ name: String, default defaultValue: Int, in range: ClosedRange<Int>, command: String
    )
        throws(UsageError) -> Int
    {
        guard let value = values[name] else { return defaultValue }
        do {
            return try NumberText.wholeNumber(value.text, in: range)
        } catch {
            throw UsageError(
                message: "Invalid value '\(value.text)' for '\(name)': \(error.reason); expected a whole number from "
                    + "\(range.lowerBound) to \(range.upperBound)",
                command: command)
        }
    }

    /// A duration option within `allowed` (see ``TimeSpan``), or nil when absent.
    func duration(_ name: String, in allowed: ClosedRange<Duration>, command: String) throws(UsageError) -> Duration? {
        guard let value = values[name] else { return nil }
        do {
            return try TimeSpan(parsing: value.text, in: allowed).duration
        } catch {
            throw UsageError(message: "Invalid value for '\(name)': \(error)", command: command)
        }
    }

    /// A size option within `allowed` (see ``ByteCount``), or nil when absent.
    func size(_ name: String, in allowed: ClosedRange<UInt64>, command: String) throws(UsageError) -> UInt64? {
        guard let value = values[name] else { return nil }
        do {
            return try ByteCount(parsing: value.text, in: allowed).bytes
        } catch {
            throw UsageError(message: "Invalid value for '\(name)': \(error)", command: command)
        }
    }
}
