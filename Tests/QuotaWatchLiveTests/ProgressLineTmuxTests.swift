import Foundation
import QuotaWatchTestSupport
import Testing

/// The crawl's progress line on a real terminal: whatever is written after it (the ready
/// line, the note after Ctrl-C, the table) starts on a cleared line, never after its text.
@Suite("the progress line is cleared", .serialized)
struct ProgressLineTmuxTests {
    @Test(
        "run: the ready line and the note after Ctrl-C are not appended to 'scanning: …'",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"))
    func runClearsItsProgressLine() throws {
        let tree = try TempTree(prefix: "qw-progress")
        try tree.makeDirectories("root/a/b")
        try tree.writeFile("root/a/b/file", byteCount: 5_000)
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }

        tmux.type(
            "'\(cli.executablePath)' run '\(tree.absolutePath("root"))' --socket '\(tree.absolutePath("run/s.sock"))'")
        var screen = try tmux.waitFor("the ready line") { $0.contains("quotawatch: ready") }
        #expect(!screen.contains("scanning:"), "the progress line was left: \(screen)")
        #expect(screen.split(separator: "\n").contains { $0.hasPrefix("quotawatch: ready") }, "\(screen)")
        tmux.keys("C-c")
        screen = try tmux.waitFor("the stop note") { $0.contains("stopped by SIGINT") }
        #expect(!screen.contains("scanning:"), "\(screen)")
        #expect(screen.split(separator: "\n").contains { $0.hasPrefix("quotawatch: stopped by SIGINT") }, "\(screen)")

        tmux.type("clear; '\(cli.executablePath)' scan '\(tree.absolutePath("root"))'; echo EXIT=$?")
        screen = try tmux.waitFor("the scan's table") { TerminalTypeTests.exited($0) }
        #expect(!screen.contains("scanning:"), "\(screen)")
    }
}
