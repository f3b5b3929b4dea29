import Foundation
import QuotaWatchTestSupport
import Testing

/// The attached view's header and list at 80 columns and wider: the socket stays in the
/// header, and a level without a quota row gives its QUOTA and USE room to the names.
@Suite("watch: header and names at 80 columns", .serialized)
struct WatchHeaderTmuxTests {
    static let longName = "com.example.a-cache-directory-of-40-chars"

    @Test(
        "attached: the socket stays in the header; a long name shows whole where no quota row is",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"),
        arguments: [(80, 24), (200, 50)])
    func headerAndNames(columns: Int, rows: Int) throws {
        let tree = try TempTree(prefix: "qw-watch-header")
        try tree.makeDirectories(TreePath("root/apps/\(Self.longName)"))
        try tree.writeFile(TreePath("root/apps/\(Self.longName)/data"), byteCount: 100_000)
        try tree.makeDirectories("root/cache")
        try tree.makeDirectories("root/small")
        try tree.writeFile("root/small/file", byteCount: 10_000)
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket,
            options: ["--quota", "cache=1GB", "--quota", "small=1KB"])
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: columns, rows: rows)

        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        // A status line as long as a user's: free space, a rate, two quota states.
        var screen = try tmux.waitFor("the root with its quotas") {
            $0.contains("quotas: 1 ok 1 breach") && WatchTmuxTests.row("apps/", in: $0) != nil
        }
        let status = screen.split(separator: "\n", omittingEmptySubsequences: false)[1]
        #expect(status.contains("attached: "), "the socket dropped off the header:\n\(screen)")
        #expect(status.hasSuffix("daemon.sock"), "\(screen)")

        tmux.keys("Enter")
        screen = try tmux.waitFor("apps' children") { $0.contains("./apps ") && $0.contains("com.example") }
        #expect(WatchTmuxTests.row(Self.longName + "/", in: screen) != nil, "the name is cut:\n\(screen)")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }
}
