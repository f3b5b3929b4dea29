import Foundation
import QuotaWatchTestSupport
import Testing

/// Files in `watch`'s list at 80x24, as ncdu and gdu show them: a 30 MB file at a level is a row
/// beside the directories, and the rows add up to the total, in the engine's own view and
/// attached to a daemon.
@Suite("watch lists files in tmux", .serialized)
struct WatchFileRowTmuxTests {
    static let tmuxPath = WatchTmuxTests.tmuxPath

    /// root/{export.mov (30 MB), Library/Caches/Feed/feed.db (12 MB), Documents/notes (5 MB)}.
    private static func sampleTree(_ prefix: String) throws -> TempTree {
        let tree = try TempTree(prefix: prefix)
        try tree.makeDirectories("root/Library/Caches/Feed")
        try tree.makeDirectories("root/Documents")
        try tree.writeFile("root/Library/Caches/Feed/feed.db", byteCount: 12_000_000)
        try tree.writeFile("root/Documents/notes", byteCount: 5_000_000)
        try tree.writeFile("root/export.mov", byteCount: 30_000_000)
        return tree
    }

    @Test(
        "80x24: a 30 MB file at the root is a row (no '/'), the rows add up to the total, Enter on it opens nothing",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func inProcess() throws {
        let tree = try Self.sampleTree("qw-watch-tmux-files")
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)
        tmux.type(
            "LANG=C.UTF-8 '\(cli.executablePath)' watch '\(tree.absolutePath("root"))' "
                + "--socket '\(tree.absolutePath("run/watch.sock"))'")
        let screen = try tmux.waitFor("the file's row") { WatchTmuxTests.row("export.mov ", in: $0) != nil }
        try Self.expectRowsAddUp(screen)
        #expect(
            try WatchTmuxTests.order(of: ["export.mov ", "Library/", "Documents/"], in: screen)
                == ["export.mov ", "Library/", "Documents/"])
        let fileRow = try #require(WatchTmuxTests.row("export.mov ", in: screen))
        #expect(fileRow.contains("30.0 MB"), "\(fileRow)")
        // The largest row is the file, and the cursor is on it: Enter says it is a file.
        #expect(fileRow.hasPrefix("> "), "\(screen)")
        tmux.keys("Enter")
        let after = try tmux.waitFor("the notice") { $0.contains("export.mov is a file; only directories open") }
        #expect(after.contains(" ./ "), "still at the root:\n\(after)")

        // The cursor stays on the file as Library grows past it.
        try tree.writeFile("root/Library/Caches/Feed/more.db", byteCount: 25_000_000)
        let resorted = try tmux.waitFor("Library above the file") {
            (try? WatchTmuxTests.order(of: ["export.mov ", "Library/"], in: $0)) == ["Library/", "export.mov "]
        }
        #expect(WatchTmuxTests.row("export.mov ", in: resorted)?.hasPrefix("> ") == true, "\(resorted)")
        try Self.expectRowsAddUp(resorted)
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    @Test(
        "attached to a daemon, the status replies carry the files too",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func attached() throws {
        let tree = try Self.sampleTree("qw-watch-tmux-files-attach")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)
        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        let screen = try tmux.waitFor("the file's row from the daemon") {
            $0.contains("attached: ") && WatchTmuxTests.row("export.mov ", in: $0) != nil
        }
        try Self.expectRowsAddUp(screen)
        // A file one level down, from the daemon too.
        tmux.keys("Down")
        tmux.keys("Enter")
        try tmux.waitFor("Library's rows") { $0.contains("./Library ") && WatchTmuxTests.row("Caches/", in: $0) != nil }
        try tree.writeFile("root/Library/settings.plist", byteCount: 2_000_000)
        try tmux.waitFor("the new file in Library") {
            WatchTmuxTests.row("settings.plist ", in: $0)?.contains("2.0 MB") == true
        }
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    /// The sizes of the root's rows add up to the header's total, within what rounding to
    /// three digits and the directories' own inodes leave (a missing 30 MB would not fit).
    private static func expectRowsAddUp(_ screen: String) throws {
        let lines = screen.split(separator: "\n").map(String.init)
        let header = try #require(lines.first, "no header in\n\(screen)")
        let total = try #require(megabytes(in: header), "no total in \(header)")
        let headings = try #require(lines.firstIndex { $0.hasPrefix("  NAME") }, "no headings in\n\(screen)")
        let rows = lines[(headings + 1)...].prefix { $0.hasPrefix("> ") || $0.hasPrefix("  ") }
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let sizes = rows.compactMap { megabytes(in: $0) }
        #expect(sizes.count == rows.count, "a row without a size in\n\(screen)")
        let sum = sizes.reduce(0, +)
        #expect(
            abs(sum - total) <= 0.05 * Double(rows.count + 1) + 0.1,
            "rows add up to \(sum) MB, total \(total) MB:\n\(screen)")
    }

    /// The first size on `line` ("30.0 MB", "4.1 KB", "0 B"), in megabytes.
    private static func megabytes(in line: String) -> Double? {
        let words = line.split(separator: " ")
        for (index, word) in words.enumerated().dropFirst() {
            let scale: Double
            switch word {
            case "B": scale = 1e-6
            case "KB": scale = 1e-3
            case "MB": scale = 1
            case "GB": scale = 1e3
            default: continue
            }
            if let value = Double(words[index - 1]) { return value * scale }
        }
        return nil
    }
}
