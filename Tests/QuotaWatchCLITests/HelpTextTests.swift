import Foundation
import QuotaWatchView
import Testing

@testable import quotawatch

/// The help of every subcommand, whole, against Tests/Fixtures/help/NAME.txt (as
/// swift-argument-parser's AssertHelp compares it): an option added, dropped, renamed or
/// re-described shows here as a diff. After a deliberate change, write the new text with
/// `quotawatch help NAME > Tests/Fixtures/help/NAME.txt`.
@Suite("help text, whole, per subcommand")
struct HelpTextTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/help")

    static var everySubcommand: [Subcommand] { QuotaWatchCLI.subcommands + [QuotaWatchCLI.helpSubcommand] }

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent("\(name).txt"), encoding: .utf8)
    }

    @Test("each subcommand's help is its fixture, line for line", arguments: everySubcommand.map(\.name))
    func page(name: String) throws {
        let subcommand = try #require(Self.everySubcommand.first { $0.name == name })
        let expected = try Self.fixture(name)
        let actual = Help.page(for: subcommand)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (want, got)) in zip(expectedLines, actualLines).enumerated() where want != got {
            Issue.record("help \(name), line \(index + 1):\n  expected: \(want)\n  actual:   \(got)")
            break
        }
        #expect(actualLines.count == expectedLines.count, "help \(name) has \(actualLines.count) lines")
        #expect(actual == expected)
    }

    @Test("the overview lists every subcommand, as its fixture")
    func overview() throws {
        #expect(Help.overview(QuotaWatchCLI.subcommands) == (try Self.fixture("overview")))
    }

    @Test("no subcommand is without a fixture, and no fixture without a subcommand")
    func fixturesMatchSubcommands() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
            .filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(4)) }
        #expect(Set(files) == Set(Self.everySubcommand.map(\.name) + ["overview"]))
    }

    @Test("watch's help, and so the manual page, names every letter key the view handles")
    func watchHelpNamesEveryKey() throws {
        let watch = try #require(QuotaWatchCLI.subcommands.first { $0.name == "watch" })
        let manual = ManualPage.render(
            QuotaWatchCLI.subcommands, help: QuotaWatchCLI.helpSubcommand, version: QuotaWatchCLI.version)
        let letters = WatchLayout.keys.flatMap { $0.key.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.count == 1 && $0.first!.isLowercase }
        #expect(letters.contains("l"))
        func words(_ text: String) -> Set<String> {
            Set(text.split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init))
        }
        for letter in letters {
            #expect(words(watch.discussion).contains(letter), "watch --help does not name the \(letter) key")
            #expect(words(manual).contains(letter), "the manual page does not name the \(letter) key")
        }
    }

    @Test("completions and the manual page offer exactly the declared options of each subcommand")
    func completionsAndManual() {
        let bash = CompletionsCommand.bash(Self.everySubcommand)
        let zsh = CompletionsCommand.zsh(Self.everySubcommand)
        let manual = ManualPage.render(
            QuotaWatchCLI.subcommands, help: QuotaWatchCLI.helpSubcommand, version: QuotaWatchCLI.version)
        for subcommand in Self.everySubcommand {
            let names = subcommand.options.map(\.name)
            let line = bash.split(separator: "\n").first { $0.hasPrefix("    \(subcommand.name)) options=") }
            let offered = line.map { String($0).split(separator: "\"")[1].split(separator: " ").map(String.init) }
            #expect(offered == names + ["--help"], "bash completion of \(subcommand.name)")
            for option in subcommand.options {
                #expect(zsh.contains("'\(option.name)["), "zsh completion of \(subcommand.name) \(option.name)")
                #expect(
                    manual.contains(".B \(ManualPage.escape(option.name))"), "manual: \(subcommand.name) \(option.name)"
                )
            }
        }
    }
}
