/// A rule between options broken (`--yes` with `--dry-run`): the message alone; the parser
/// adds the subcommand, to print its usage line.
struct ValidationError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// A subcommand's command line, parsed and checked: every value already in its type, so
/// running reads no word again. Built from reusable groups (``DaemonAddressOptions``,
/// ``ByteFormatOptions``, ``RunPolicy/Options``…), each declaring its options once.
protocol CommandOptions: Sendable {
    /// Every option the subcommand accepts, in the order the help lists them. Names are
    /// unique (the parser refuses a second declaration of one).
    static var declarations: [OptionSpec] { get }
    /// Reads the parsed words, each value in its grammar.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// The rules between options, checked once every value is read.
    func validate() throws(ValidationError)
}

extension CommandOptions {
    func validate() throws(ValidationError) {}

    /// The pure function from words to options: parses, reads, validates. Nothing runs.
    static func parse(_ words: [CommandLineArgument], command: String) throws(UsageError) -> Self {
        let parsed = try ParsedArguments(words, options: declarations, command: command)
        let options = try Self(parsed)
        do {
            try options.validate()
        } catch {
            throw UsageError(message: error.message, command: command)
        }
        return options
    }
}

/// A subcommand: its help, made from its declarations, and its two steps, parse then run.
struct Subcommand: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [ArgumentSpec]
    var options: [OptionSpec]
    /// Parses the words into the subcommand's options, then runs with them. Running may still
    /// find a usage error only the file system can show (a `--bundle` that is not a directory).
    let execute: @Sendable ([CommandLineArgument]) throws(UsageError) -> ExitStatus
    /// The first step alone: parses and validates the words, runs nothing.
    let parse: @Sendable ([CommandLineArgument]) throws(UsageError) -> Void

    init<Options: CommandOptions>(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec],
        options: Options.Type, run: @escaping @Sendable (Options) throws(UsageError) -> ExitStatus
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = Options.declarations
        execute = { words throws(UsageError) in try run(Options.parse(words, command: name)) }
        parse = { words throws(UsageError) in _ = try Options.parse(words, command: name) }
    }

    var usage: String {
        var words = ["quotawatch", name]
        words += arguments.map { argument in
            let word = "<\(argument.name)>" + (argument.isRepeated ? "..." : "")
            return argument.isOptional ? "[\(word)]" : word
        }
        words += options.map { option in "[\(option.name)\(option.valueName.map { " \($0)" } ?? "")]" }
        return words.joined(separator: " ")
    }
}

extension Flag {
    /// The same flag described for another subcommand.
    func described(_ help: String) -> Flag { Flag(spec.name, help: help) }
}

extension Option {
    /// The same option, in the same grammar, described for another subcommand.
    func described(value valueName: String? = nil, _ help: String) -> Option {
        Option(spec.name, value: valueName ?? spec.valueName ?? "", help: help, grammar)
    }
}
