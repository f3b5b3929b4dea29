/// An option as the parser, the help, the completions and the manual page know it: its
/// name, the placeholder of its value ("<n>"; nil for a flag) and its help.
struct OptionSpec: Sendable, Equatable {
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
        spec = OptionSpec(name: name, valueName: valueName, help: help)
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

    init(_ parse: @escaping @Sendable (_ word: CommandLineArgument, _ option: String) throws(InvalidValue) -> Value) {
        self.parse = parse
    }
}
