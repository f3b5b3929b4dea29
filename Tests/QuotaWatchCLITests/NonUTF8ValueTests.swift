import Testing

@testable import quotawatch

/// A value that is not UTF-8 is quoted as the bytes it is (`\xff`) in every message, never
/// as U+FFFD, which would hide what was typed; a path keeps its bytes.
@Suite("option values that are not UTF-8")
struct NonUTF8ValueTests {
    static let bad = CommandLineArgument(bytes: [UInt8(ascii: "x"), 0xFF])

    @Test(
        "every valued option of every subcommand refuses or keeps the bytes, and quotes them as \\xNN",
        arguments: QuotaWatchCLI.subcommands.map(\.name))
    func everyOption(name: String) throws {
        let subcommand = try #require(QuotaWatchCLI.subcommands.first { $0.name == name })
        for option in subcommand.options where option.valueName != nil {
            let words: [CommandLineArgument] = ["root", CommandLineArgument(option.name), Self.bad]
            do {
                _ = try subcommand.parse(words)
            } catch {
                #expect(!error.message.contains("\u{FFFD}"), "\(name) \(option.name): \(error.message)")
                #expect(error.message.contains("x\\xff"), "\(name) \(option.name): \(error.message)")
            }
        }
    }

    @Test("an extra positional is quoted as its bytes")
    func extraPositional() {
        #expect {
            try ScanCommand.Options.parse(["root", Self.bad], command: "scan")
        } throws: { error in
            (error as? UsageError)?.message == "Unexpected argument 'x\\xff'"
        }
    }
}
