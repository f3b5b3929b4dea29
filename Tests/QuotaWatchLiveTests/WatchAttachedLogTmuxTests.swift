import Foundation
import QuotaWatchTestSupport
import Testing

/// `watch --socket` attached to a daemon that has been running: its log starts with the
/// daemon's events from before, then says where they end, then goes on live.
@Suite("watch attached: the log starts with what came before", .serialized)
struct WatchAttachedLogTmuxTests {
    @Test(
        "a breach from before attaching is in the log, above the line saying so, and the live events follow once",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"))
    func earlierEventsFillTheLog() throws {
        let tree = try TempTree(prefix: "qw-watch-attached-log")
        for directory in ["root", "root/Caches", "root/Caches/Feed", "root/Caches/Other"] {
            try tree.makeDirectory(TreePath(directory))
        }
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--quota", "Caches/*=1MB"])
        defer { _ = try? daemon.stop() }
        // Before any view is attached.
        try tree.writeFile("root/Caches/Feed/download", byteCount: 2_000_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/Feed")

        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)
        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        var screen = try tmux.waitFor("the earlier breach and where the earlier events end") {
            $0.contains("quota_breach Caches/Feed") && $0.contains("came before this view attached")
        }
        #expect(screen.contains(" ready "), "the daemon's ready event is not in the log:\n\(screen)")
        #expect(
            try Self.order(of: ["quota_breach Caches/Feed", "subscribed the "], in: screen)
                == ["quota_breach Caches/Feed", "subscribed the "])

        try tree.writeFile("root/Caches/Other/download", byteCount: 2_000_000)
        screen = try tmux.waitFor("the live breach") { $0.contains("quota_breach Caches/Other") }
        let sequence = ["quota_breach Caches/Feed", "subscribed the ", "quota_breach Caches/Other"]
        #expect(try Self.order(of: sequence, in: screen) == sequence)
        #expect(screen.components(separatedBy: "quota_breach Caches/Feed").count == 2, "twice:\n\(screen)")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    /// The texts in the order of the lines they are first found on.
    static func order(of texts: [String], in screen: String) throws -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let found = try texts.map { text in
            (text, try #require(lines.firstIndex { $0.contains(text) }, "\(text) is not on the screen:\n\(screen)"))
        }
        return found.sorted { $0.1 < $1.1 }.map(\.0)
    }
}
