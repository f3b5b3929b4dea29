import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// One escaping of names in every human output: a name holding ESC, a newline, a byte that is
/// not UTF-8 and a tab reads the same in scan, status, status --quotas, clean, the watch screen,
/// errors from the commands and from the daemon, and the daemon's log, and
/// stays on one line. (The JSON outputs, events included, are JSON: the same text, JSON-escaped.)
@Suite("one escaping of names in every output", .serialized)
struct OneEscapingTests {
    /// A directory (and a file) below ROOT: ESC, a newline, 0xff and a tab.
    static let name: [UInt8] = [0x71, 0x1b, 0x5b, 0x31, 0x6d, 0x0a, 0x5a, 0xff, 0x09, 0x58]
    static let nameShown = #"q\x1b[1m\x0aZ\xff\x09X"#
    /// ROOT's own last component: ESC, a newline and a tab (an argument here must be UTF-8).
    static let rootName = "r\u{1b}[1m\nV\tW"
    static let rootShown = #"r\x1b[1m\x0aV\x09W"#

    /// `output` shows `shown` and nothing of the name raw: no ESC, and no line that starts
    /// with the part after the newline or a tab before the part after it.
    private func expectEscaped(_ output: String, _ shown: [String], _ what: String) {
        for text in shown { #expect(output.contains(text), "\(what) does not show \(text):\n\(output)") }
        #expect(!output.contains("\u{1b}"), "\(what) holds a raw ESC:\n\(output)")
        for raw in ["\nZ", "\tX", "\nV", "\tW", "\u{fffd}"] {
            #expect(!output.contains(raw), "\(what) holds \(raw.debugDescription) raw:\n\(output)")
        }
    }

    @Test(
        "scan, clean, status, status --quotas, errors, the log and the watch screen",
        .enabled(
            if: WatchTmuxTests.tmuxPath != nil,
            "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func everyOutput() throws {
        let tree = try TempTree(prefix: "qw-one-escaping")
        let root = TreePath(components: [Array(Self.rootName.utf8)])
        let caches = root.appending("Library").appending("Caches")
        try tree.makeDirectory(root)
        try tree.makeDirectories(caches)
        try tree.makeDirectory(caches.appending(Self.name))
        try tree.writeFile(caches.appending(Self.name).appending(Self.name), byteCount: 20_000)
        try tree.makeDirectory("state")
        let rootPath = tree.absolutePath(root)
        let rootShown = tree.rootPath + "/" + Self.rootShown
        let cli = try CLIRunner.locate()

        let scan = try cli.run(["scan", rootPath, "--depth", "all"])
        #expect(scan.exitStatus == 0, "\(scan)")
        expectEscaped(scan.outputText, ["ROOT: \(rootShown)\n", "  Library/Caches/\(Self.nameShown)\n"], "scan")
        let list = try cli.run(["clean", rootPath, "--list"])
        expectEscaped(list.outputText, [rootShown, "  \(Self.nameShown) "], "clean --list")
        let dryRun = try cli.run(["clean", rootPath, "--dry-run", "--category", "caches"])
        expectEscaped(
            dryRun.outputText, ["Library/Caches/\(Self.nameShown)/\(Self.nameShown)\n"], "clean --dry-run")
        let history = try cli.run(["history", rootPath, "--state-dir", tree.absolutePath("state")])
        #expect(history.exitStatus == 1, "\(history)")
        expectEscaped(history.errorText, ["quotawatch: error: no history for \(rootShown): "], "history's error")

        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: rootPath, socket: socket, options: ["--quota", "Library/Caches/*=10kB", "--trace"])
        defer { _ = try? daemon.stop() }
        _ = try daemon.waitForEvent("quota_breach")
        // A change inside the name's directory, for the trace to name it.
        try tree.writeFile(caches.appending(Self.name).appending("more"), byteCount: 1_000)
        let status = try cli.run(["status", rootPath, "--socket", socket, "--depth", "all", "--sync"])
        expectEscaped(status.outputText, ["ROOT: \(rootShown)\n", "  Library/Caches/\(Self.nameShown)\n"], "status")
        let quotas = try cli.run(["status", rootPath, "--socket", socket, "--quotas"])
        expectEscaped(quotas.outputText, ["  Library/Caches/\(Self.nameShown)\n"], "status --quotas")
        // The daemon's answer to a path it has not: its root and the path, shown by the command.
        let missing = try ProcessRunner.run(
            cli.executablePath,
            [
                Array("status".utf8), Array(rootPath.utf8), Array("--socket".utf8), Array(socket.utf8),
                Array("--path".utf8), Array("Library/nope".utf8) + Self.name,
            ])
        #expect(missing.exitStatus == 1, "\(missing)")
        expectEscaped(
            missing.errorText, ["\(rootShown) has no directory 'Library/nope\(Self.nameShown)'"], "the daemon's error")

        // Attached: the rows, the file's row and the breadcrumb of the screen; the event lines.
        let tmux = try Tmux(path: WatchTmuxTests.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 120, rows: 30)
        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the root's rows") { WatchTmuxTests.row("Library/", in: $0) != nil }
        tmux.keys("Enter")
        try tmux.waitFor("Library's rows") { WatchTmuxTests.row("Caches/", in: $0) != nil }
        tmux.keys("Enter")
        var screen = try tmux.waitFor("the name's row") { WatchTmuxTests.row(Self.nameShown + "/", in: $0) != nil }
        expectEscaped(screen, [Self.rootShown, Self.nameShown + "/"], "the watch screen")
        tmux.keys("Enter")
        screen = try tmux.waitFor("the file's row") { WatchTmuxTests.row(Self.nameShown + " ", in: $0) != nil }
        expectEscaped(screen, ["./Library/Caches/\(Self.nameShown) "], "the breadcrumb")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }

        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
        // The log: the ready line names ROOT, the trace every event's file below it.
        expectEscaped(
            daemon.errorText,
            ["quotawatch: ready: watching \(rootShown): ", "\(rootShown)/Library/Caches/\(Self.nameShown) "],
            "the daemon's log")
    }
}
