import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch clean ROOT` on a real terminal: tmux gives it one, sends the keys and shows
/// the screen. Skipped where tmux is not installed.
@Suite("clean on a terminal")
struct CleanInteractiveTests {
    /// A tmux server of this test's own, holding one window with the command in it.
    private final class Terminal {
        let tmux: String
        let server: String

        init(tmux: String, command: String) throws {
            self.tmux = tmux
            server = "qw-clean-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let started = try ProcessRunner.run(
                tmux, ["-L", server, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", command])
            guard started.exitStatus == 0 else { throw DaemonError("tmux did not start", result: started) }
            let shown = try ProcessRunner.run(
                tmux, ["-L", server, "display-message", "-p", "#{pid} #{pane_pid} #{socket_path}"])
            let words = shown.outputText.split(whereSeparator: \.isWhitespace).map(String.init)
            processes = words.compactMap { pid_t($0) }
            socket = words.last { $0.hasPrefix("/") }
        }

        private var socket: String?

        /// The tmux server, then the pane's process.
        var serverAndPane: [pid_t] { processes }

        /// The server and the pane's process. The server inherits this test process's blocked
        /// signals, so it cannot be asked to stop (it waits for a SIGCHLD that never comes):
        /// both are killed.
        private var processes: [pid_t] = []

        deinit {
            for process in processes.reversed() { kill(process, SIGKILL) }
            if let socket { unlink(socket) }
        }

        var screen: String {
            (try? ProcessRunner.run(tmux, ["-L", server, "capture-pane", "-p", "-S", "-200"]))?.outputText ?? ""
        }

        func send(_ keys: String...) throws {
            let sent = try ProcessRunner.run(tmux, ["-L", server, "send-keys"] + keys)
            guard sent.exitStatus == 0 else { throw DaemonError("tmux send-keys failed", result: sent) }
        }

        /// Waits until the screen shows `text`: the terminal has nothing else to wait on.
        func waitFor(_ text: String, timeout: Duration = .seconds(30)) throws {
            let deadline = ContinuousClock.now + timeout
            while !screen.contains(text) {
                guard ContinuousClock.now < deadline else {
                    throw DaemonError("the screen never showed '\(text)':\n\(screen)")
                }
                usleep(50_000)
            }
        }
    }

    private func command(_ setup: CleanFixture) -> String {
        "env STATE_DIRECTORY='\(setup.state.rootPath)' '\(setup.fixture.cli.executablePath)' clean '\(setup.rootPath)';"
            + " echo EXIT=$?; exec sleep 600"
    }

    @Test(
        "space marks a category, enter shows the count and size, y deletes just that; q deletes nothing",
        .enabled(if: ProcessRunner.findExecutable("tmux") != nil, "needs tmux (Debian's tmux package)"))
    func markConfirmDelete() throws {
        let setup = try CleanFixture()
        let tmux = try #require(ProcessRunner.findExecutable("tmux"))
        let leftovers = CleanFixture.expected.filter { $0.value == "leftovers" }.map(\.key)

        let quitting = try Terminal(tmux: tmux, command: command(setup))
        try quitting.waitFor("space: mark")
        try quitting.send("Space")
        try quitting.waitFor("marked 3 file(s)")
        try quitting.send("q")
        try quitting.waitFor("EXIT=0")
        #expect(quitting.screen.contains("Nothing was deleted."))
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "q removed \(path)") }

        let terminal = try Terminal(tmux: tmux, command: command(setup))
        try terminal.waitFor("space: mark")
        #expect(terminal.screen.contains("leftovers — download leftovers"), "\(terminal.screen)")
        try terminal.send("Space")
        try terminal.waitFor("marked 3 file(s)")
        try terminal.send("Enter")
        try terminal.waitFor("Delete 3 file(s)")
        try terminal.send("y")
        try terminal.waitFor("EXIT=0")
        #expect(terminal.screen.contains("removed 3 file(s)"), "\(terminal.screen)")
        for path in CleanFixture.expected.keys {
            #expect(try setup.exists(path) == !leftovers.contains(path), "\(path)")
        }
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(Set(intents.compactMap { $0["path"] as? String }) == Set(leftovers))
    }

    @Test(
        "the terminal going away (window closed, ssh lost) ends the page, deleting nothing, instead of spinning",
        .enabled(if: ProcessRunner.findExecutable("tmux") != nil, "needs tmux (Debian's tmux package)"))
    func terminalHangUp() throws {
        let setup = try CleanFixture()
        let tmux = try #require(ProcessRunner.findExecutable("tmux"))
        // exec: the pane's process is clean itself.
        let terminal = try Terminal(
            tmux: tmux,
            command: "exec env STATE_DIRECTORY='\(setup.state.rootPath)' "
                + "'\(setup.fixture.cli.executablePath)' clean '\(setup.rootPath)'")
        try terminal.waitFor("space: mark")
        try terminal.send("Space")
        try terminal.waitFor("marked 3 file(s)")
        let processes = terminal.serverAndPane
        try #require(processes.count == 2, "\(processes)")
        kill(processes[0], SIGKILL)  // the server: the pane's terminal is closed under the page

        // An orphan is reaped by another process: nothing here can wait on it, so poll.
        let deadline = ContinuousClock.now + .seconds(30)
        while WatchTmuxTests.isRunning(processes[1]) && ContinuousClock.now < deadline { usleep(50_000) }
        #expect(!WatchTmuxTests.isRunning(processes[1]), "clean still runs after its terminal went away")
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path) was removed") }
        #expect(try setup.auditRecords().isEmpty)
    }
}
