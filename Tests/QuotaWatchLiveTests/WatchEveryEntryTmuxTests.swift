import Foundation
import QuotaWatchTestSupport
import Testing

/// Every entry of a long directory level is reachable in the attached view, in name order as
/// in size order: nothing past a cut-off is hidden.
@Suite("watch: every entry reachable", .serialized)
struct WatchEveryEntryTmuxTests {
    @Test(
        "attached, a level of 700 directories: End in name order reaches the last one",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"))
    func sevenHundredDirectories() throws {
        let tree = try TempTree(prefix: "qw-watch-700")
        try tree.makeDirectories("root/level")
        let names = (0..<700).map { String(format: "d%03d", $0) }
        for name in names { try tree.makeDirectory(TreePath("root/level/\(name)")) }
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }

        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the attached view") { WatchTmuxTests.row("level/", in: $0) != nil }
        tmux.keys("Enter")
        try tmux.waitFor("level's children") { $0.contains("./level") && WatchTmuxTests.row("d", in: $0) != nil }
        tmux.keys("s")
        var screen = try tmux.waitFor("name order") { $0.contains("sort: name") }
        #expect(WatchTmuxTests.row("d000/", in: screen) != nil, "\(screen)")
        tmux.keys("End")
        // The cursor leaves d000 for the last row the view has.
        screen = try tmux.waitFor("the cursor at the end") { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("> d") && !$0.hasPrefix("> d000/") }
        }
        #expect(screen.contains("> d699/"), "End did not reach d699: \(screen)")
        #expect(!screen.contains(" more (the largest"), "a list of 700 is not cut: \(screen)")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }
}
