import Foundation
import QuotaWatchTestSupport
import Testing

/// The directory a person is looking at is removed: the attached view goes up to the nearest
/// directory still there and says so, instead of a daemon error cut to the footer's width.
@Suite("watch: a removed directory", .serialized)
struct WatchGoneDirectoryTmuxTests {
    @Test(
        "attached at 80x24: a/b shown, a removed: the view shows the root and the footer says a/b is gone",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"))
    func removedDirectoryTakesTheViewUp() throws {
        let tree = try TempTree(prefix: "qw-watch-gone")
        try tree.makeDirectories("root/a/b/c")
        try tree.makeDirectories("root/other")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)

        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the root's list") { WatchTmuxTests.row("a/", in: $0)?.hasPrefix("> ") == true }
        tmux.keys("Enter")
        try tmux.waitFor("a's list") { $0.contains("./a ") && WatchTmuxTests.row("b/", in: $0) != nil }
        tmux.keys("Enter")
        try tmux.waitFor("b's list") { $0.contains("./a/b ") && WatchTmuxTests.row("c/", in: $0) != nil }

        try tree.removeSubtree("root/a")
        let screen = try tmux.waitFor("the root again, and why") { screen in
            screen.contains("./a/b is gone (removed or moved)") && WatchTmuxTests.row("other/", in: screen) != nil
        }
        #expect(!screen.contains("has no directory"), "\(screen)")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }
}
