import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `watch` and `clean` on a terminal whose TERM is unset or unknown to terminfo, and an
/// attached `watch` whose daemon goes away.
@Suite("terminal types and a vanished daemon", .serialized)
struct TerminalTypeTests {
    @Test(
        "clean with TERM unset or unknown prints its page with a warning naming TERM, instead of curses' own error",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "needs tmux (Debian's tmux package)"),
        arguments: ["-u TERM", "TERM=qw-no-such-terminal"])
    func cleanWithoutAKnownTerminal(term: String) throws {
        let setup = try CleanFixture()
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: setup.tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(setup) { tmux.killServer() } }
        tmux.type(
            "env \(term) LANG=C.UTF-8 STATE_DIRECTORY='\(setup.state.rootPath)' "
                + "'\(setup.fixture.cli.executablePath)' clean '\(setup.rootPath)'; echo EXIT=$?")
        let screen = try tmux.waitFor("the exit") { Self.exited($0) }
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(!screen.contains("Error opening terminal"), "\(screen)")
        let named = term.hasPrefix("-u") ? "TERM is not set" : "TERM=qw-no-such-terminal names no terminal"
        #expect(screen.contains("quotawatch: warning: \(named)"), "\(screen)")
        #expect(screen.contains("TERM=xterm-256color"), "the way out is not named: \(screen)")
        #expect(screen.contains("Nothing was deleted. To delete"), "\(screen)")
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path) was removed") }
    }

    @Test(
        "watch with an unknown TERM prints event lines with a warning naming TERM, instead of curses' own error",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "needs tmux (Debian's tmux package)"))
    func watchWithAnUnknownTerminal() throws {
        let tree = try TempTree(prefix: "qw-watch-term")
        try tree.makeDirectory("root")
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.type(
            "env TERM=qw-no-such-terminal LANG=C.UTF-8 '\(cli.executablePath)' watch '\(tree.absolutePath("root"))' "
                + "--socket '\(tree.absolutePath("run/watch.sock"))'; echo EXIT=$?")
        var screen = try tmux.waitFor("the ready line") { $0.contains(" ready") || Self.exited($0) }
        #expect(!screen.contains("Error opening terminal"), "\(screen)")
        #expect(screen.contains("TERM=qw-no-such-terminal names no terminal terminfo knows"), "\(screen)")
        #expect(!tmux.alternateScreenIsOn)
        tmux.keys("C-c")
        screen = try tmux.waitFor("the exit") { Self.exited($0) }
        #expect(screen.contains("EXIT=0"), "\(screen)")
    }

    /// The command's `echo EXIT=$?` ran (the typed command line holds the text too).
    static func exited(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.hasPrefix("EXIT=") }
    }

    @Test("an attached watch whose daemon is killed exits 1, saying the daemon went away")
    func daemonKilledUnderAnAttachedWatch() throws {
        let tree = try TempTree(prefix: "qw-watch-daemon-gone")
        try tree.makeDirectory("root")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }

        let watch = try PipedWatch(cli, ["watch", "--socket", socket], mergingErrors: true)
        defer { watch.cancelGuard() }
        _ = try #require(watch.lines.next { $0.contains(" subscribed ") }, "not subscribed; got \(watch.lines.seen)")
        daemon.send(SIGKILL)
        let ending = watch.lines.next { $0.contains("went away") }
        watch.process.waitUntilExit()
        #expect(watch.process.terminationStatus == 1, "\(watch.lines.seen)")
        #expect(ending?.hasPrefix("quotawatch: error: the daemon on ") == true, "\(watch.lines.seen)")
    }
}
