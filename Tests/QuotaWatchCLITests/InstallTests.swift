import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `scripts/install` into a temporary prefix, what it puts there, and `--uninstall`.
@Suite("scripts/install, the manual page and completions")
struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().standardized.path
    static let man = ProcessRunner.findExecutable("man")

    /// Installs into a fresh prefix with the binary under test; returns the prefix.
    private func install(into scratch: TempTree) throws -> String {
        let cli = try CLIRunner.locate()
        let prefix = scratch.absolutePath("prefix")
        let result = try ProcessRunner.run(
            "\(Self.repository)/scripts/install", ["--prefix", prefix],
            environment: ["QUOTAWATCH_BIN": URL(fileURLWithPath: cli.executablePath).deletingLastPathComponent().path])
        #expect(result.exitStatus == 0, "\(result)")
        return prefix
    }

    @Test("everything goes where its readers look, the unit runs the installed binary, --uninstall removes it all")
    func installAndUninstall() throws {
        let scratch = try TempTree(prefix: "qw-install")
        let prefix = try install(into: scratch)
        for file in [
            "bin/quotawatch", "lib/systemd/system/quotawatch@.service", "lib/systemd/system/quotawatch.service",
            "share/quotawatch/quotawatch.example.yaml",
            "share/quotawatch/hooks/notify.sh", "share/quotawatch/hooks/alertmanager.sh",
            "share/man/man1/quotawatch.1", "share/bash-completion/completions/quotawatch",
            "share/zsh/site-functions/_quotawatch",
        ] {
            #expect(access("\(prefix)/\(file)", R_OK) == 0, "\(file) is missing")
        }
        #expect(access("\(prefix)/bin/quotawatch", X_OK) == 0)
        let unit = try String(contentsOfFile: "\(prefix)/lib/systemd/system/quotawatch@.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/quotawatch run %f"), "\(unit)")
        let many = try String(contentsOfFile: "\(prefix)/lib/systemd/system/quotawatch.service", encoding: .utf8)
        #expect(many.contains("ExecStart=\(prefix)/bin/quotawatch run --config"), "\(many)")
        let notify = try String(contentsOfFile: "\(prefix)/share/quotawatch/hooks/notify.sh", encoding: .utf8)
        #expect(notify.contains("\(prefix)/share/quotawatch/hooks/notify.sh"), "the header names where it is")

        let uninstall = try ProcessRunner.run(
            "\(Self.repository)/scripts/install", ["--uninstall", "--prefix", prefix])
        #expect(uninstall.exitStatus == 0, "\(uninstall)")
        #expect(access(prefix, F_OK) != 0, "the prefix it made is left behind: \(uninstall)")
        let again = try ProcessRunner.run("\(Self.repository)/scripts/install", ["--uninstall", "--prefix", prefix])
        #expect(again.exitStatus == 1 && again.errorText.contains("nothing to uninstall"), "\(again)")
    }

    @Test("--uninstall leaves what it did not put there")
    func uninstallKeepsOthers() throws {
        let scratch = try TempTree(prefix: "qw-install")
        try scratch.makeDirectories("prefix/share/man/man1")
        try scratch.writeFile("prefix/share/man/man1/other.1", contents: Array(".TH OTHER 1\n".utf8))
        let prefix = try install(into: scratch)
        let result = try ProcessRunner.run("\(Self.repository)/scripts/install", ["--uninstall", "--prefix", prefix])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(access("\(prefix)/share/man/man1/other.1", F_OK) == 0)
        #expect(access("\(prefix)/share/man/man1/quotawatch.1", F_OK) != 0)
        #expect(access("\(prefix)/bin", F_OK) != 0, "bin was made by the install and is empty again")
    }

    @Test(
        "man renders the installed quotawatch(1) with every subcommand and its options",
        .enabled(if: man != nil, "needs man (Debian's man-db)"))
    func manualPage() throws {
        let scratch = try TempTree(prefix: "qw-install")
        let prefix = try install(into: scratch)
        let result = try ProcessRunner.run(
            Self.man!, ["-l", "\(prefix)/share/man/man1/quotawatch.1"],
            environment: ["MANWIDTH": "100", "PAGER": "cat"])
        #expect(result.exitStatus == 0, "\(result)")
        let page = result.outputText
        for word in [
            "QUOTAWATCH(1)", "quotawatch scan", "quotawatch run", "quotawatch watch", "--one-file-system",
            "EXIT STATUS",
        ] {
            #expect(page.contains(word), "the page lacks \(word)")
        }
        #expect(!result.errorText.contains("warning"), "\(result.errorText)")
    }

    @Test("bash completes 'quotawatch st' to status and 'scan --de' to --depth")
    func bashCompletion() throws {
        let scratch = try TempTree(prefix: "qw-install")
        let prefix = try install(into: scratch)
        let script = """
            source "$1"
            COMP_WORDS=(quotawatch st); COMP_CWORD=1; _quotawatch; echo "${COMPREPLY[*]}"
            COMP_WORDS=(quotawatch scan --de); COMP_CWORD=2; _quotawatch; echo "${COMPREPLY[*]}"
            """
        let result = try ProcessRunner.run(
            "/bin/bash", ["-c", script, "bash", "\(prefix)/share/bash-completion/completions/quotawatch"])
        #expect(result.exitStatus == 0, "\(result)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.first == "status", "\(lines)")
        #expect(lines.dropFirst().first == "--depth", "\(lines)")
    }

    @Test("a misspelt subcommand or option is answered with the nearest one; help help explains help")
    func suggestions() throws {
        let cli = try CLIRunner.locate()
        let subcommand = try cli.run(["stauts"])
        #expect(subcommand.exitStatus == 64 && subcommand.errorText.contains("did you mean 'status'?"), "\(subcommand)")
        let option = try cli.run(["scan", ".", "--dept", "2"])
        #expect(option.exitStatus == 64 && option.errorText.contains("did you mean '--depth'?"), "\(option)")
        let nothingClose = try cli.run(["frobnicate"])
        #expect(nothingClose.exitStatus == 64 && !nothingClose.errorText.contains("did you mean"), "\(nothingClose)")
        let help = try cli.run(["help", "help"])
        #expect(help.exitStatus == 0 && help.outputText.contains("USAGE: quotawatch help"), "\(help)")
        let shell = try cli.run(["completions", "fish"])
        #expect(shell.exitStatus == 64 && shell.errorText.contains("'fish'"), "\(shell)")
    }
}
