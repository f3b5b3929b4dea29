import Foundation
import Glibc

/// Why a daemon under test did not do what the test waited for, with everything it wrote.
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String

    public init(_ message: String, daemon: Daemon? = nil, result: ProcessResult? = nil) {
        var text = message
        if let result { text += "\n\(result)" }
        if let daemon { text += "\n\(daemon.transcript)" }
        description = text
    }
}

/// How a daemon under test ended, and what it wrote.
public struct DaemonExit: Sendable, CustomStringConvertible {
    public let termination: ProcessResult.Termination
    public let events: [EngineEventLine]
    public let standardError: [UInt8]

    public var exitStatus: CInt? {
        if case .exited(let status) = termination { return status }
        return nil
    }

    public var errorText: String { String(decoding: standardError, as: UTF8.self) }

    public var description: String {
        "termination: \(termination)\nevents:\n\(events.map(\.text).joined(separator: "\n"))\nstderr: \(errorText)"
    }
}

/// A `quotawatch run ROOT --socket S --events jsonl` started for one test, serving its
/// ``SiblingRoots`` too unless told to serve ROOT alone; ``events`` are ROOT's own.
///
/// Standard output and standard error are read on threads of their own as the daemon writes
/// them, so every wait here waits for something the daemon says (an event line, the end of
/// its output when it exits), each with a deadline that fails with a clear error. A daemon
/// still running when its `Daemon` goes away is killed with SIGKILL and reaped, so no test
/// leaves one behind.
public final class Daemon {
    public let processID: pid_t
    public let root: String
    public let socketPath: String
    public let command: [String]
    /// The roots served beside `root` (``SiblingRoots``); nil for a daemon on its root alone.
    public let siblings: SiblingRoots?
    let cli: CLIRunner
    private let user: UserIdentity?
    let output: StreamCollector
    let errors: StreamCollector
    /// The state directory (history, audit log) of a daemon whose test named none.
    private let ownState: TempTree?
    private var ended: ProcessResult.Termination?

    /// Starts the daemon and waits for its `ready` event.
    ///
    /// - Parameters:
    ///   - options: more arguments for `run`.
    ///   - user: runs the daemon (and its status requests) as this user, through setpriv.
    ///   - wrapper: a command line the daemon's own is appended to, which must end by
    ///     executing it (as `unshare … sh -c '… && exec "$0" "$@"'` does), so that the
    ///     process started is the daemon.
    ///   - alone: why this daemon must serve `root` alone, without ``SiblingRoots`` (a test of
    ///     what only a process with one root does); nil to serve the siblings too.
    public static func start(
        _ cli: CLIRunner, root: String, socket: String, options: [String] = [], as user: UserIdentity? = nil,
        wrapper: [String] = [], readyTimeout: Duration = .seconds(60), alone: String? = nil
    ) throws -> Daemon {
        let daemon = try launch(
            cli, root: root, socket: socket, options: options, as: user, wrapper: wrapper, alone: alone)
        _ = try daemon.waitForEvent("ready", timeout: readyTimeout)
        try daemon.waitForSiblingsReady(timeout: readyTimeout)
        return daemon
    }

    /// Starts the daemon without waiting for anything, for a start that is meant to fail.
    public static func launch(
        _ cli: CLIRunner, root: String, socket: String, options: [String] = [], as user: UserIdentity? = nil,
        wrapper: [String] = [], alone: String? = nil
    ) throws -> Daemon {
        let count = alone == nil ? SiblingRoots.requestedCount : 0
        let siblings = count > 0 ? try SiblingRoots(count: count, as: user) : nil
        // History is on by default: a test that names no state directory gets one of its own, so
        // nothing is written outside its temporary directories.
        var ownState: TempTree?
        var wrapper = wrapper
        if !wrapper.contains(where: { $0.hasPrefix("STATE_DIRECTORY=") }), !options.contains("--state-dir"),
            !options.contains("--no-history")
        {
            let state = try TempTree(prefix: "qw-daemon-state")
            if user != nil { try state.setMode(.root, 0o1777) }
            ownState = state
            wrapper = ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"] + wrapper
        }
        var command =
            wrapper + [cli.executablePath, "run", root, "--socket", socket] + (siblings?.arguments ?? [])
            + ["--events", "jsonl"] + options
        if !options.contains("--backend") { command += ["--backend", DaemonBackend.forTests(as: user)] }
        if let user {
            guard let setpriv = ProcessRunner.setprivPath else {
                throw SystemCallError("posix_spawn", "setpriv is not installed", errno: ENOENT)
            }
            command = [setpriv, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + command
        }
        let spawned = try DaemonSpawner.spawn(command)
        return Daemon(
            processID: spawned.processID, root: root, socketPath: socket, command: command, siblings: siblings,
            cli: cli, user: user, output: StreamCollector(descriptor: spawned.output),
            errors: StreamCollector(descriptor: spawned.errors),
            ownState: ownState)
    }

    private init(
        processID: pid_t, root: String, socketPath: String, command: [String], siblings: SiblingRoots?,
        cli: CLIRunner, user: UserIdentity?, output: StreamCollector, errors: StreamCollector, ownState: TempTree?
    ) {
        self.siblings = siblings
        self.ownState = ownState
        self.processID = processID
        self.root = root
        self.socketPath = socketPath
        self.command = command
        self.cli = cli
        self.user = user
        self.output = output
        self.errors = errors
    }

    deinit {
        if ended == nil {
            kill(processID, SIGKILL)
            _ = reap(options: 0)
        }
    }

    // MARK: What it says

    /// The event lines of the test's root written so far (not its siblings').
    public var events: [EngineEventLine] { ownEventLines(in: output.snapshot.bytes) }

    /// The event lines of every root served written so far, the siblings' too.
    public var allEvents: [EngineEventLine] { Self.eventLines(in: output.snapshot.bytes) }

    /// Standard error so far.
    public var errorText: String { String(decoding: errors.snapshot.bytes, as: UTF8.self) }

    /// The command, its events and its standard error so far, for failure messages.
    public var transcript: String {
        """
        daemon: \(command.joined(separator: " ")) (pid \(processID))
        daemon events:
        \(String(decoding: output.snapshot.bytes, as: UTF8.self))
        daemon stderr: \(errorText)
        """
    }

    /// Waits until standard error contains `text`.
    public func waitForStandardError(containing text: String, timeout: Duration = .seconds(60)) throws {
        let needle = Array(text.utf8)
        let arrived = errors.wait(timeout: timeout) { bytes, _ in Self.contains(bytes, needle) }
        guard arrived else { throw DaemonError("stderr never said '\(text)'", daemon: self) }
    }

    /// Waits for the first event line named `name`, or `count` of them.
    @discardableResult
    public func waitForEvent(
        _ name: String, count: Int = 1, timeout: Duration = .seconds(60)
    ) throws
        -> EngineEventLine
    {
        var found: EngineEventLine?
        let arrived = output.wait(timeout: timeout) { bytes, _ in
            let matching = self.ownEventLines(in: bytes).filter { $0.event == name }
            found = matching.count >= count ? matching[count - 1] : nil
            return found != nil
        }
        guard arrived, let found else {
            let state = output.snapshot.closed ? "the daemon closed its output first" : "timed out after \(timeout)"
            throw DaemonError("no \(count == 1 ? "" : "\(count)th ")'\(name)' event: \(state)", daemon: self)
        }
        return found
    }

    /// Waits for the `count`th event line named `name` that also satisfies `matching`
    /// (`description` says what it is, for the error).
    @discardableResult
    public func waitForEvent(
        _ name: String, count: Int = 1, description: String, timeout: Duration = .seconds(60),
        matching: @escaping (EngineEventLine) -> Bool
    ) throws -> EngineEventLine {
        var found: EngineEventLine?
        let arrived = output.wait(timeout: timeout) { bytes, _ in
            let lines = self.ownEventLines(in: bytes).filter { $0.event == name && matching($0) }
            found = lines.count >= count ? lines[count - 1] : nil
            return found != nil
        }
        guard arrived, let found else {
            let state = output.snapshot.closed ? "the daemon closed its output first" : "timed out after \(timeout)"
            throw DaemonError(
                "no \(count == 1 ? "" : "\(count)th ")'\(name)' event \(description): \(state)", daemon: self)
        }
        return found
    }

    /// The event lines named `name` written so far that satisfy `matching`.
    public func events(_ name: String, where matching: (EngineEventLine) -> Bool = { _ in true }) -> [EngineEventLine] {
        events.filter { $0.event == name && matching($0) }
    }

    // MARK: Asking it

    /// `quotawatch status ROOT --socket S --json`, with `--sync` unless told otherwise; throws
    /// unless it succeeds with a status document.
    public func status(sync: Bool = true, timeoutSeconds: Int = 60) throws -> LiveStatus {
        let arguments =
            ["status", root, "--socket", socketPath, "--json", "--timeout", "\(timeoutSeconds)"]
            + (sync ? ["--sync"] : [])
        let result = try statusCommand(arguments)
        guard result.exitStatus == 0 else {
            throw DaemonError("status failed", daemon: self, result: result)
        }
        do {
            return try LiveStatus(json: result.standardOutput)
        } catch {
            throw DaemonError("status printed no status document: \(error)", daemon: self, result: result)
        }
    }

    /// `status --sync --json`: the tallies once every change made before the call is counted.
    public func syncStatus() throws -> LiveStatus { try status(sync: true) }

    /// Runs `quotawatch` with `arguments` as the daemon's user.
    public func statusCommand(_ arguments: [String]) throws -> ProcessResult {
        try cli.run(arguments, as: user)
    }

    // MARK: Signals and exit

    /// Sends `signal` without waiting for anything.
    public func send(_ signal: CInt) {
        kill(processID, signal)
    }

    /// Stops the daemon with SIGSTOP and waits until the kernel reports it stopped, so that
    /// nothing it does can overlap what the test does next.
    public func suspend() throws {
        kill(processID, SIGSTOP)
        let status = reap(options: WUNTRACED)
        guard let status, status & 0xFF == 0x7F else {
            throw DaemonError(
                "SIGSTOP did not stop the daemon (wait status \(String(describing: status)))", daemon: self)
        }
    }

    /// Continues a daemon stopped by ``suspend()``.
    public func resume() throws {
        kill(processID, SIGCONT)
        let status = reap(options: WCONTINUED)
        guard status == 0xFFFF else {
            throw DaemonError(
                "SIGCONT did not continue the daemon (wait status \(String(describing: status)))", daemon: self)
        }
    }

    /// Sends `signal` and waits for the daemon to exit.
    public func stop(_ signal: CInt = SIGTERM, timeout: Duration = .seconds(30)) throws -> DaemonExit {
        if ended == nil { kill(processID, signal) }
        return try waitForExit(timeout: timeout)
    }

    /// Waits until the daemon exits by itself: both its streams end, then it is reaped.
    public func waitForExit(timeout: Duration = .seconds(30)) throws -> DaemonExit {
        if ended == nil {
            let deadline = ContinuousClock.now.advanced(by: timeout)
            for stream in [output, errors] {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard stream.wait(timeout: max(remaining, .zero), until: { _, closed in closed }) else {
                    throw DaemonError("the daemon did not exit within \(timeout)", daemon: self)
                }
            }
            while ended == nil {
                guard let status = reap(options: 0) else {
                    throw DaemonError("waitpid failed: errno \(errno)", daemon: self)
                }
                if status & 0x7F == 0 {
                    ended = .exited((status >> 8) & 0xFF)
                } else if status & 0xFF != 0x7F && status != 0xFFFF {
                    ended = .signaled(status & 0x7F)
                }
            }
        }
        let problems = siblings?.eventProblems(in: allEvents) ?? []
        guard problems.isEmpty else {
            throw DaemonError("sibling roots not isolated:\n\(problems.joined(separator: "\n"))", daemon: self)
        }
        return DaemonExit(termination: ended!, events: events, standardError: errors.snapshot.bytes)
    }

    /// waitpid for this daemon, retried after EINTR; the raw wait status, or nil on failure.
    private func reap(options: CInt) -> CInt? {
        var status: CInt = 0
        while true {
            let result = waitpid(processID, &status, options)
            if result == processID { return status }
            if result == -1 && errno == EINTR { continue }
            return nil
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<start + needle.count].elementsEqual(needle)
        }
    }

    static func eventLines(in bytes: [UInt8]) -> [EngineEventLine] {
        bytes.split(separator: UInt8(ascii: "\n")).compactMap { EngineEventLine(Array($0)) }
    }
}
