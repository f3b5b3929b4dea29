import Foundation
import QuotaWatchTestSupport
import Testing

/// Backspace in the attached view comes back to the parent as it was left, as ncdu does: the
/// cursor on the directory left, the same row at the top, the list's last row in use.
@Suite("watch: backspace restores the parent", .serialized)
struct WatchBackspaceTmuxTests {
    @Test(
        "attached: Down, Enter, Backspace and PgDn, Enter, Backspace keep the cursor and the top row",
        .enabled(if: WatchTmuxTests.tmuxPath != nil, "tmux is not installed: install Debian's tmux"),
        arguments: [(80, 24), (200, 50)])
    func backspaceRestoresCursorAndTopRow(columns: Int, rows: Int) throws {
        let tree = try TempTree(prefix: "qw-watch-backspace")
        // Equal sizes: the size order is the name order, so every row's place is known.
        for index in 0..<120 { try tree.makeDirectories(TreePath(String(format: "root/d%03d/inner", index))) }
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--quota", "*/full=1KB"])
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: columns, rows: rows)

        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the root's list") { Self.selectedRow(in: $0)?.hasPrefix("> d000/") == true }
        // A log longer than the screen: the list's share of the rows then depends on its length.
        for index in 0..<120 { try tree.makeDirectory(TreePath(String(format: "root/d%03d/full", index))) }
        try tmux.waitFor("a full log") { $0.contains("quotas: 120 breach") && $0.contains("quota_breach d1") }

        tmux.keys("Down")
        try tmux.waitFor("the cursor on d001") { Self.selectedRow(in: $0)?.hasPrefix("> d001/") == true }
        try expectBackspaceReturns(to: "d001/", topRow: "d000/", tmux)

        tmux.keys("PageDown")
        let scrolled = try tmux.waitFor("a scrolled list") { screen in
            guard let selected = Self.selectedRow(in: screen), let top = Self.topRow(in: screen) else { return false }
            // A page down from the second row: the cursor on the last row, d001 now at the top.
            return selected == Self.lastListRow(in: screen) && top.hasPrefix("  d001/")
        }
        let selected = try #require(Self.selectedRow(in: scrolled)).dropFirst(2).prefix(5)
        let top = try #require(Self.topRow(in: scrolled)).dropFirst(2).prefix(5)
        try expectBackspaceReturns(to: String(selected), topRow: String(top), tmux)

        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    /// Enter on the selected row `name`, then Backspace: the parent comes back with the cursor
    /// on `name`, `topRow` at the top and the "… N more" mark or a row on the list's last line.
    private func expectBackspaceReturns(to name: String, topRow: String, _ tmux: Tmux) throws {
        tmux.keys("Enter")
        try tmux.waitFor("\(name)'s children") { Self.selectedRow(in: $0)?.hasPrefix("> full/") == true }
        tmux.keys("BSpace")
        // A capture can fall inside a refresh: wait for the whole expected list, up to a deadline
        // (before the fix, the top row stayed on the directory left, scrolled one row too far).
        try tmux.waitFor("the parent with the cursor on \(name) and \(topRow) at the top") { screen in
            Self.selectedRow(in: screen)?.hasPrefix("> " + name) == true
                && Self.topRow(in: screen)?.dropFirst(2).hasPrefix(topRow) == true
                && Self.lastListRow(in: screen)?.trimmingCharacters(in: .whitespaces).isEmpty == false
        }
    }

    static func listLines(in screen: String) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let headings = lines.firstIndex(where: { $0.hasPrefix("  NAME") }) else { return [] }
        let end = lines[headings...].firstIndex { $0.hasPrefix(" events") || $0.hasPrefix(" cleanup candidates") }
        return Array(lines[(headings + 1)..<(end ?? lines.count)])
    }

    static func selectedRow(in screen: String) -> String? { listLines(in: screen).first { $0.hasPrefix("> ") } }
    static func topRow(in screen: String) -> String? { listLines(in: screen).first }
    static func lastListRow(in screen: String) -> String? { listLines(in: screen).last }
}
