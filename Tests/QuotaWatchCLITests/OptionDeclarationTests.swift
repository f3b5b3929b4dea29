import Testing

@testable import quotawatch

/// The declarations themselves: one per name in every subcommand, and a parser that refuses
/// a second one rather than letting it shadow the first.
@Suite("option declarations")
struct OptionDeclarationTests {
    @Test("every subcommand declares each option name once", arguments: HelpTextTests.everySubcommand.map(\.name))
    func unique(name: String) throws {
        let subcommand = try #require(HelpTextTests.everySubcommand.first { $0.name == name })
        var seen: [String: Int] = [:]
        for option in subcommand.options { seen[option.name, default: 0] += 1 }
        #expect(
            seen.filter { $0.value > 1 }.isEmpty, "declared more than once in \(name): \(seen.filter { $0.value > 1 })")
        #expect(OptionSpec.firstDuplicate(in: subcommand.options) == nil)
        #expect(!subcommand.options.contains { $0.name == "--help" || $0.name == "-h" }, "--help is the parser's")
    }

    @Test("the parser refuses a list that declares a name twice, whatever the words")
    func duplicateRefused() {
        let first = Flag("--json", help: "One.").spec
        let second = Option("--json", value: "<n>", help: "Two.", .wholeNumber(in: 0...1)).spec
        for words: [CommandLineArgument] in [[], ["--json"], ["x"]] {
            #expect {
                try ParsedArguments(words, options: [first, second], command: "scan")
            } throws: { error in
                (error as? UsageError)?.message.contains("'--json' is declared twice for 'scan'") == true
            }
        }
        #expect(OptionSpec.firstDuplicate(in: [first, Flag("--iec", help: "").spec, second]) == "--json")
    }

    @Test("run and watch share the engine's declarations, and watch adds only its own")
    func watchTakesRunOptions() {
        let run = RunCommand.Options.declarations.map(\.name)
        let watch = WatchCommand.Options.declarations.map(\.name)
        #expect(Array(watch.prefix(run.count)) == run)
        #expect(Array(watch.dropFirst(run.count)) == ["--iec", "--bytes", "--ios", "--ios-version", "--bundle"])
        #expect(run.contains("--backend"))
    }
}

/// Every declared option is read back by its subcommand's options: one declared and never
/// read would be accepted, listed in the help, and then silently ignored.
@Suite("every declaration is read")
struct DeclarationsReadTests {
    static let minimal: [(name: String, type: any CommandOptions.Type, words: [CommandLineArgument])] = [
        ("scan", ScanCommand.Options.self, ["r"]), ("run", RunCommand.Options.self, ["r"]),
        ("status", StatusCommand.Options.self, ["r"]), ("check-config", CheckConfigCommand.Options.self, ["f"]),
        ("clean-now", CleanNowCommand.Options.self, ["r"]), ("clean", CleanCommand.Options.self, ["r"]),
        ("history", HistoryCommand.Options.self, ["r"]), ("watch", WatchCommand.Options.self, ["r"]),
        ("completions", CompletionsCommand.Options.self, ["bash"]), ("help", QuotaWatchCLI.HelpOptions.self, []),
    ]

    @Test("each subcommand's Options reads every option it declares")
    func everyDeclarationRead() throws {
        #expect(Set(Self.minimal.map(\.name)) == Set(HelpTextTests.everySubcommand.map(\.name)))
        for (name, type, words) in Self.minimal {
            let parsed = try ParsedArguments(words, options: type.declarations, command: name)
            _ = try type.init(parsed)
            #expect(parsed.unreadDeclarations.isEmpty, "\(name) never reads \(parsed.unreadDeclarations)")
        }
    }

    @Test("a declaration its options never read is found")
    func unreadFound() throws {
        let extra = Flag("--frobnicate", help: "Declared, never read.").spec
        let parsed = try ParsedArguments(["r"], options: ScanCommand.Options.declarations + [extra], command: "scan")
        _ = try ScanCommand.Options(parsed)
        #expect(parsed.unreadDeclarations == ["--frobnicate"])
    }
}
