/// An option as the parser, the help, the completions and the manual page know it: its
/// name, the placeholder of its value ("<n>"; nil for a flag) and its help.
struct OptionSpec: Sendable, Equatable {
    var name: String
    /// The placeholder shown in help when the option takes a value, such as "<n>".
    var valueName: String?
    var help: String
    /// What a shell offers for the value: taken from the value's grammar.
    var completion = ValueCompletion.nothing
}

/// What a shell's completion offers for a value or a positional argument.
enum ValueCompletion: Sendable, Equatable {
    /// Nothing to offer: a number, a duration, a size, free text.
    case nothing
    /// One of these words, the very ones the grammar accepts.
    case words([String])
    case files
    case directories
    /// A subcommand's name (`help`'s argument).
    case subcommands
}

/// A positional argument a subcommand accepts.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var completion = ValueCompletion.directories
    /// Given once or more (`<root>...`).
    var isRepeated = false
}

/// A flag, declared once: present or not (`arguments[flag]`).
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ name: String, help: String) { spec = OptionSpec(name: name, valueName: nil, help: help) }
}

/// An option that takes a value, declared once with the grammar of that value: the parser
/// turns each word given to it into a `Value` while it reads the command line, so a bad value
/// is a usage error before anything runs (`arguments.value(option)`, `arguments.values(option)`).
struct Option<Value: Sendable>: Sendable {
    let spec: OptionSpec
    let grammar: ValueGrammar<Value>

    init(_ name: String, value valueName: String, help: String, _ grammar: ValueGrammar<Value>) {
        spec = OptionSpec(name: name, valueName: valueName, help: help, completion: grammar.completion)
        self.grammar = grammar
    }
}

/// A bad value: the whole message, naming the option, the value and what is allowed.
struct InvalidValue: Error, Equatable {
    var message: String
}

/// How one word given to an option becomes a value: the value grammars of QuotaWatchCore
/// (``NumberText``, ``TimeSpan``, ``ByteCount``) and QuotaWatchPolicy, with the message that
/// names what is wrong. `option` is the option's name, for that message.
struct ValueGrammar<Value: Sendable>: Sendable {
    let parse: @Sendable (_ word: CommandLineArgument, _ option: String) throws(InvalidValue) -> Value
    /// What the completions offer for it: a grammar of a fixed set names its words here.
    let completion: ValueCompletion

    init(
        completing completion: ValueCompletion = .nothing,
        _ parse: @escaping @Sendable (_ word: CommandLineArgument, _ option: String) throws(InvalidValue) -> Value
    ) {
        self.parse = parse
        self.completion = completion
    }
}
