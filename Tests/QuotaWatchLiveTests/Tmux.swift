import Foundation
import Glibc
import QuotaWatchTestSupport

/// A private tmux server (its own socket, no user config) with one window running a shell.
struct Tmux {
    static let prompt = "qwprompt$"
    static let session = "qw"
    let path: String
    let socket: String
    /// The server's process id, for a last-resort kill.
    private(set) var serverProcess: pid_t = 0
    private(set) var paneProcess: pid_t = 0

    init(path: String, socket: String) throws {
        self.path = path
        self.socket = socket
        let started = try run([
            "new-session", "-d", "-s", Self.session, "-x", "100", "-y", "30",
            "env PS1='\(Self.prompt) ' TERM=screen /bin/sh",
        ])
        guard started.exitStatus == 0 else { throw TmuxError(description: "tmux new-session failed: \(started)") }
        let pids = try run(["display-message", "-p", "-t", Self.session, "#{pid} #{pane_pid}"]).outputText
            .split(whereSeparator: \.isWhitespace).map { pid_t($0) ?? 0 }
        serverProcess = pids.first ?? 0
        paneProcess = pids.dropFirst().first ?? 0
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(path, ["-S", socket, "-f", "/dev/null"] + arguments)
    }

    /// Types `text` and Enter.
    func type(_ text: String) {
        _ = try? run(["send-keys", "-t", Self.session, "-l", text])
        keys("Enter")
    }

    func keys(_ names: String...) { _ = try? run(["send-keys", "-t", Self.session] + names) }

    func resize(columns: Int, rows: Int) {
        _ = try? run(["resize-window", "-t", Self.session, "-x", "\(columns)", "-y", "\(rows)"])
    }

    func capture() -> String { (try? run(["capture-pane", "-p", "-t", Self.session]))?.outputText ?? "" }

    /// The pane with its attributes and colours as escape sequences (`capture-pane -e`).
    func captureWithEscapes() -> String {
        (try? run(["capture-pane", "-e", "-p", "-t", Self.session]))?.outputText ?? ""
    }

    var alternateScreenIsOn: Bool {
        (try? run(["display-message", "-p", "-t", Self.session, "#{alternate_on}"]))?.outputText
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    /// Captures the pane until `condition` holds. A terminal offers nothing to wait on, so this
    /// is the one place a test polls: every 50 ms, for at most `timeout`.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var screen = capture()
        while !condition(screen) {
            guard ContinuousClock.now < deadline else {
                throw TmuxError(description: "no \(what) within \(timeout); the pane shows:\n\(screen)")
            }
            Thread.sleep(forTimeInterval: 0.05)
            screen = capture()
        }
        return screen
    }

    /// The process the pane's shell runs in the foreground (its only child).
    func foregroundChild() -> pid_t? {
        guard
            let shell = (try? run(["display-message", "-p", "-t", Self.session, "#{pane_pid}"]))?.outputText
                .trimmingCharacters(in: .whitespacesAndNewlines),
            let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        else { return nil }
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Ends the server and the shell in it. kill-server alone is not enough here: started from
    /// the test process, the server inherits its blocked signals and may outlive the command,
    /// so both are also killed by process id (checked to still be tmux and a shell); that also
    /// closes the pane's terminal, as a closed window or a lost ssh connection does.
    func killServer() {
        _ = try? run(["kill-server"])
        for (process, name) in [(paneProcess, "sh"), (serverProcess, "tmux")] where process > 1 {
            let command = (try? String(contentsOfFile: "/proc/\(process)/comm", encoding: .utf8)) ?? ""
            // The server names itself "tmux: server".
            if command.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(name) { kill(process, SIGKILL) }
        }
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
}
