import Foundation
import QuotaWatchTestSupport
import Testing

/// `quotawatch watch` on a real terminal: tmux runs it in a window of a known size, and
/// `capture-pane` shows what a person would see.
@Suite("watch in tmux", .serialized)
struct WatchTmuxTests {
    static let tmuxPath = ProcessRunner.findExecutable("tmux")

    @Test(
        "header, a breached row, sorting, descending, a resize, and q and Ctrl-C give the terminal back",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func theViewInATerminal() throws {
        let tree = try TempTree(prefix: "qw-watch-tmux")
        for directory in ["root", "root/Library", "root/Library/Caches", "root/Library/Caches/Feed"] {
            try tree.makeDirectory(TreePath(directory))
        }
        try tree.makeDirectory("root/Library/Caches/Aaa")
        try tree.makeDirectory("root/Documents")
        try tree.writeFile("root/Documents/notes", byteCount: 10_000)
        try tree.writeFile("root/Library/Caches/Aaa/small", byteCount: 1_000)
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        // The tree holds the server's socket: it must outlive the kill-server that needs it.
        defer { withExtendedLifetime(tree) { tmux.killServer() } }

        let command =
            "LANG=C.UTF-8 '\(cli.executablePath)' watch '\(tree.absolutePath("root"))' "
            + "--socket '\(tree.absolutePath("run/watch.sock"))' --quota 'Library/Caches/*=1MB'"
        tmux.type(command)
        var screen = try tmux.waitFor("the header") { $0.contains("QuotaWatch") && $0.contains("level normal") }
        #expect(screen.contains("root"))
        #expect(screen.contains("level "))
        #expect(screen.contains("sort: size"))
        #expect(tmux.alternateScreenIsOn)

        try tree.writeFile("root/Library/Caches/Feed/download", byteCount: 2_000_000)
        screen = try tmux.waitFor("the breach in the header and the log") {
            $0.contains("1 breach") && $0.contains("quota_breach Library/Caches/Feed")
        }

        // Library is the largest directory of the root, so the cursor is on it.
        tmux.keys("Enter")
        try tmux.waitFor("Library's children") { $0.contains("./Library ") && Self.row("Caches/", in: $0) != nil }
        tmux.keys("Enter")
        screen = try tmux.waitFor("the breached row") { screen in
            Self.row("Feed/", in: screen)?.contains("[##########]") == true
        }
        #expect(screen.contains("./Library/Caches"))
        let sizeOrder = try Self.order(of: ["Feed/", "Aaa/"], in: screen)
        #expect(sizeOrder == ["Feed/", "Aaa/"])

        tmux.keys("s")
        // A capture can fall between the header's bytes and the list's in one refresh: wait
        // for the frame whose header says name order, and whose list then must be in it.
        screen = try tmux.waitFor("name order") { screen in
            screen.contains("sort: name") && (try? Self.order(of: ["Feed/", "Aaa/"], in: screen)) == ["Aaa/", "Feed/"]
        }
        #expect(try Self.order(of: ["Feed/", "Aaa/"], in: screen) == ["Aaa/", "Feed/"])

        tmux.resize(columns: 70, rows: 20)
        try tmux.waitFor("the too-small message") { $0.contains("window too small: 70x20") }
        tmux.resize(columns: 100, rows: 30)
        try tmux.waitFor("the view again") { $0.contains("./Library/Caches") && $0.contains("sort: name") }

        tmux.keys("q")
        screen = try tmux.waitFor("the shell prompt") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
        #expect(!tmux.alternateScreenIsOn)
        #expect(!screen.contains("QuotaWatch "))

        // Ctrl-C stops it as cleanly, through the engine's signal thread.
        tmux.type(command)
        try tmux.waitFor("the header again") { $0.contains("QuotaWatch") && $0.contains("level normal") }
        tmux.keys("C-c")
        screen = try tmux.waitFor("the shell prompt after Ctrl-C") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
        #expect(!tmux.alternateScreenIsOn)
        #expect(screen.contains("stopped by SIGINT"))

        // SIGTERM from elsewhere too.
        tmux.type(command)
        try tmux.waitFor("the header a third time") { $0.contains("QuotaWatch") && $0.contains("level normal") }
        let watchProcess = try #require(tmux.foregroundChild(), "no process runs in the pane's shell")
        kill(watchProcess, SIGTERM)
        screen = try tmux.waitFor("the shell prompt after SIGTERM") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
        #expect(!tmux.alternateScreenIsOn)
        #expect(screen.contains("stopped by SIGTERM"))
    }

    @Test(
        "attached to a daemon: its rows, its quota states, its events, and c asks it to clean",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func attachedView() throws {
        let tree = try TempTree(prefix: "qw-watch-tmux-attach")
        for directory in ["root", "root/Caches", "root/Caches/Feed"] { try tree.makeDirectory(TreePath(directory)) }
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--quota", "Caches/*=1MB"])
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        // The tree holds the server's socket: it must outlive the kill-server that needs it.
        defer { withExtendedLifetime(tree) { tmux.killServer() } }

        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the attached header") { $0.contains("attached: ") && $0.contains("level normal") }
        // The daemon's ready event came before: the subscription's line says so.
        try tmux.waitFor("the subscription") { $0.contains("above came before this view attached") }
        try tree.writeFile("root/Caches/Feed/download", byteCount: 2_000_000)
        try tmux.waitFor("the breach from the daemon") {
            $0.contains("1 breach") && $0.contains("quota_breach Caches/Feed")
        }
        tmux.keys("Enter")
        try tmux.waitFor("the breached row") { Self.row("Feed/", in: $0)?.contains("[##########]") == true }

        tmux.keys("c")
        try tmux.waitFor("the confirmation") { $0.contains("Run every cleaner now?") }
        tmux.keys("y")
        // The daemon has no --clean: a dry run, reported by the reply and by the event.
        try tmux.waitFor("the cleanup") {
            $0.contains("cleanup done: would remove") && $0.contains("cleanup trigger manual")
        }

        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
        #expect(!tmux.alternateScreenIsOn)
        // The daemon is still there, untouched by the view's going.
        #expect(try daemon.status(sync: false).engine.events > 0)
    }

    @Test(
        "a terminal that goes away (the window closed, ssh lost) ends the view instead of leaving it spinning",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func terminalHangUp() throws {
        let (tree, tmux) = try Self.watchOnEmptyRoot("qw-watch-tmux-hangup")
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        try tmux.waitFor("the header") { $0.contains("QuotaWatch") && $0.contains("level normal") }
        let view = try #require(tmux.foregroundChild(), "no process in the pane")
        defer { kill(view, SIGKILL) }  // only if it outlived the test's checks

        tmux.killServer()  // the pane's terminal is gone; the view blocks SIGHUP (a reload)
        // An orphan is reaped by another process: nothing here can wait on it, so poll.
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.isRunning(view) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!Self.isRunning(view), "watch \(view) still runs after its terminal went away")
    }

    @Test(
        "--metrics-listen with port 0: the view's log says where the metrics are (stderr is behind the screen)",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func metricsAddressOnTheScreen() throws {
        let (tree, tmux) = try Self.watchOnEmptyRoot("qw-watch-tmux-metrics", "--metrics-listen 127.0.0.1:0")
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        try tmux.waitFor("the metrics address in the log") {
            $0.contains("QuotaWatch") && $0.contains("log metrics at http://127.0.0.1:")
        }
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    @Test(
        "80x24: a leftover flood is one log line, a breach shows, whole key hints, p freezes, l shows all",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func eightyByTwentyFour() throws {
        let tree = try TempTree(prefix: "qw-watch-tmux-80x24")
        try tree.makeDirectories("root/tmp")
        try tree.makeDirectories("root/Library/Caches/Feed")
        // Documents, Library and tmp: the ios-sandbox profile and its leftover rules apply.
        try tree.makeDirectories("root/Documents")
        for index in 1...12 {
            let name = TreePath("root/tmp/CFNetworkDownload_A\(index)x.tmp")
            try tree.writeFile(name, byteCount: 10_000 * index)
            try setModified(tree, name, secondsSinceEpoch: 1_577_836_800)
        }
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)
        tmux.type(
            "LANG=C.UTF-8 '\(cli.executablePath)' watch '\(tree.absolutePath("root"))' "
                + "--socket '\(tree.absolutePath("run/watch.sock"))' --quota 'Library/Caches/*=1MB' "
                // Idle is counted from the ctime, which the old mtimes above do not move back.
                + "--leftover-after 2s")
        try tmux.waitFor("the folded leftovers") { $0.contains("leftover 12 leftovers, ") }
        try tree.writeFile("root/Library/Caches/Feed/download", byteCount: 2_000_000)
        // The twelve leftovers took one line of the log: the breach comes in under it.
        var screen = try tmux.waitFor("the breach in the log") { $0.contains("quota_breach Library/Caches/Feed") }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Self.lastLine(screen).hasSuffix("? help  q quit"), "\(screen)")
        #expect(!lines.contains { $0.contains("leftover tmp/") }, "\(screen)")
        #expect(screen.contains("cleanup candidates (12, "))

        tmux.keys("p")
        screen = try tmux.waitFor("PAUSED in the header") { $0.contains(" PAUSED  level") }
        #expect(Self.lastLine(screen).contains("p resume"))
        tmux.keys("p")
        try tmux.waitFor("the pause lifted") { !$0.contains("PAUSED") && $0.contains("p pause") }

        tmux.keys("l")
        screen = try tmux.waitFor("the full log") { $0.contains(" events: all") }
        // Each leftover on its own line, wrapped in full.
        #expect(screen.contains("leftover tmp/CFNetworkDownload_A") && screen.contains("          cfnetwork-download)"))
        tmux.keys("l")
        try tmux.waitFor("the list again") { $0.contains("  NAME") }
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    @Test(
        "NO_COLOR set and not empty: the view draws no colours (bold and reverse stay); unset, the level is green",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func noColor() throws {
        // The test runner may have NO_COLOR set itself: each case says what it wants.
        for (environment, coloured) in [("env -u NO_COLOR ", true), ("NO_COLOR=1 ", false), ("NO_COLOR= ", true)] {
            let (tree, tmux) = try Self.watchOnEmptyRoot("qw-watch-tmux-nocolor", environment: environment)
            defer { withExtendedLifetime(tree) { tmux.killServer() } }
            try tmux.waitFor("the level") { $0.contains("level normal") }
            let screen = tmux.captureWithEscapes()
            // SGR foreground colours 30-37, alone or after other attributes.
            let colours = (30...37).flatMap { ["\u{1b}[\($0)m", ";\($0)m"] }.filter { screen.contains($0) }
            #expect(colours.isEmpty != coloured, "\(environment)colours \(colours) in:\n\(screen)")
            #expect(screen.contains("\u{1b}[1;7m"), "the title bar is bold reverse whatever the colours")
            tmux.keys("q")
            try tmux.waitFor("the shell prompt") { Self.lastLine($0).hasPrefix(Tmux.prompt) }
        }
    }

    /// A tmux server of its own typing `watch` on an empty root, with `options` after it and
    /// `environment` (`NAME=value `) before it.
    static func watchOnEmptyRoot(
        _ prefix: String, _ options: String = "", environment: String = ""
    ) throws -> (TempTree, Tmux) {
        let tree = try TempTree(prefix: prefix)
        try tree.makeDirectory("root")
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        tmux.type(
            environment + "LANG=C.UTF-8 '\(cli.executablePath)' watch '\(tree.absolutePath("root"))' "
                + "--socket '\(tree.absolutePath("run/watch.sock"))' \(options)")
        return (tree, tmux)
    }

    /// Whether `process` exists and is not a zombie.
    static func isRunning(_ process: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// The directory list's row for `name` (the log may name it too, inside a path).
    static func row(_ name: String, in screen: String) -> String? {
        screen.split(separator: "\n").first { $0.hasPrefix("> " + name) || $0.hasPrefix("  " + name) }.map(String.init)
    }

    /// The names in the order their rows appear on `screen`.
    static func order(of names: [String], in screen: String) throws -> [String] {
        let lines = screen.split(separator: "\n").map(String.init)
        return try names.map { name in
            let index = lines.firstIndex { $0.hasPrefix("> " + name) || $0.hasPrefix("  " + name) }
            return (name, try #require(index, "no row for \(name) in\n\(screen)"))
        }
        .sorted { $0.1 < $1.1 }.map(\.0)
    }

    static func lastLine(_ screen: String) -> String {
        screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init) ?? ""
    }
}
