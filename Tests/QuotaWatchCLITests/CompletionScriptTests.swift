import Foundation
import QuotaWatchTestSupport
import Testing

@testable import quotawatch

/// The completion scripts offer what the parser accepts: an option's fixed values, paths where
/// a path goes, subcommand names after `help`; run in bash itself, in a directory of known names.
@Suite("completions: option values, paths and subcommands")
struct CompletionScriptTests {
    static let zsh = ProcessRunner.findExecutable("zsh")

    /// `quotawatch completions bash` sourced in bash, in a directory holding config.yaml and
    /// data/; each of `lines` is a command line whose last word is completed (it may be empty).
    private func complete(_ lines: [[String]]) throws -> [String] {
        let scratch = try TempTree(prefix: "qw-completion")
        try scratch.makeDirectories("work/data")
        try scratch.writeFile("work/config.yaml", byteCount: 10)
        let cli = try CLIRunner.locate()
        let generated = try cli.run(["completions", "bash"])
        #expect(generated.exitStatus == 0, "\(generated)")
        try scratch.writeFile("completion.bash", contents: Array(generated.outputText.utf8))
        var script = "source \"$1\"; cd \"$2\"\n"
        for words in lines {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            script += "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _quotawatch; echo \"${COMPREPLY[*]}\"\n"
        }
        let result = try ProcessRunner.run(
            "/bin/bash", ["-c", script, "bash", scratch.absolutePath("completion.bash"), scratch.absolutePath("work")])
        #expect(result.exitStatus == 0, "\(result)")
        return result.outputText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("bash: an option with a fixed set of values completes those values, not file names")
    func bashFixedValues() throws {
        let replies = try complete([
            ["quotawatch", "run", "--backend", ""],
            ["quotawatch", "watch", "--events", ""],
            ["quotawatch", "run", "--log-level", "w"],
            ["quotawatch", "clean", "--kind", "v"],
            ["quotawatch", "clean", "--category", "al"],
            ["quotawatch", "status", "--state", ""],
            ["quotawatch", "history", "--event", "quota_b"],
        ])
        #expect(replies[0] == "auto inotify fanotify")
        #expect(replies[1] == "jsonl")
        #expect(replies[2] == "warning")
        #expect(replies[3] == "video")
        #expect(replies[4] == "all")
        #expect(Set(replies[5].split(separator: " ")) == ["ok", "warning", "breach"])
        #expect(replies[6] == "quota_breach")
    }

    @Test("bash: a number or a duration offers nothing; a path a file, a directory option only directories")
    func bashPathsAndNothing() throws {
        let replies = try complete([
            ["quotawatch", "run", "--workers", ""],
            ["quotawatch", "run", "--leftover-after", ""],
            ["quotawatch", "run", "--config", "c"],
            ["quotawatch", "scan", "--bundle", ""],
            ["quotawatch", "run", "--state-dir", ""],
        ])
        #expect(replies[0].isEmpty, "\(replies[0])")
        #expect(replies[1].isEmpty, "\(replies[1])")
        #expect(replies[2] == "config.yaml")
        #expect(replies[3] == "data")
        #expect(replies[4] == "data")
    }

    @Test("bash: check-config completes files, help completes subcommands, a root completes directories")
    func bashPositionals() throws {
        let replies = try complete([
            ["quotawatch", "check-config", "c"],
            ["quotawatch", "help", ""],
            ["quotawatch", "help", "st"],
            ["quotawatch", "completions", ""],
            ["quotawatch", "scan", ""],
        ])
        #expect(replies[0] == "config.yaml")
        #expect(replies[1].split(separator: " ").map(String.init) == QuotaWatchCLI.subcommands.map(\.name) + ["help"])
        #expect(replies[2] == "status")
        #expect(replies[3] == "bash zsh")
        #expect(replies[4] == "data")
    }

    @Test("zsh: the same values in the _arguments specs (the script's text, no zsh needed)")
    func zshSpecs() {
        let script = CompletionsCommand.zsh(QuotaWatchCLI.subcommands + [QuotaWatchCLI.helpSubcommand])
        #expect(script.contains(":<auto|inotify|fanotify>:(auto inotify fanotify)'"))
        #expect(script.contains(":<level>:(debug info notice warning error)'"))
        #expect(script.contains("'1:file:_files'"))
        #expect(
            script.contains(
                "'1:subcommand:(scan run status check-config clean-now clean history watch completions help)'"))
        #expect(script.contains("'1:shell:(bash zsh)'"))
        #expect(!script.contains("<n>:_files"), "a number completes no file names")
    }

    @Test(
        "zsh: the script is valid zsh and defines _quotawatch",
        .enabled(if: zsh != nil, "zsh is not installed: the zsh script is only checked as text (zshSpecs)"))
    func zshParses() throws {
        let cli = try CLIRunner.locate()
        let scratch = try TempTree(prefix: "qw-completion-zsh")
        try scratch.writeFile("_quotawatch", contents: Array(try cli.run(["completions", "zsh"]).outputText.utf8))
        let result = try ProcessRunner.run(Self.zsh!, ["-n", scratch.absolutePath("_quotawatch")])
        #expect(result.exitStatus == 0, "\(result)")
    }
}
