import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// How a client names the daemon it asks: `--socket PATH`, or the watched ROOT, whose
/// socket is the one `run ROOT` listens on.
struct DaemonAddressOptions: Sendable {
    static let socket = Option("--socket", value: "<path>", help: "The daemon's control socket.", .word)
    static let declarations = [socket.spec]

    var socket: CommandLineArgument?
    var root: CommandLineArgument?
    /// For the message when neither is given.
    private var command: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        socket = try arguments.value(Self.socket)
        root = try arguments.optional("root")
        command = arguments.command
    }

    /// Neither a ROOT nor --socket was given.
    var isOmitted: Bool { socket == nil && root == nil }

    func validate() throws(ValidationError) {
        if socket == nil && root == nil {
            throw ValidationError(
                "Name the watched root or its socket: quotawatch \(command) ROOT"
                    + Self.running(RunningDaemons.running(), me: ProcessIdentity.effectiveUserID))
        }
    }

    /// The daemons running, on one line, for a client that was not told which to ask.
    static func running(_ daemons: [RunningDaemons.Daemon], me: UInt32) -> String {
        guard !daemons.isEmpty else {
            return " (no quotawatch daemon is running: start one with 'quotawatch run ROOT')"
        }
        let lines = daemons.map { daemon in
            let root = daemon.root.map(HumanText.name) ?? "(a root that cannot be read)"
            let socket =
                daemon.socket.map(HumanText.name)
                ?? (daemon.userID == me
                    ? daemon.root.map { HumanText.name(SocketPath.defaultPath(forRoot: $0)) } ?? "its default socket"
                    : "the default socket of user \(daemon.userID)")
            return "\(root) (pid \(daemon.processID), user \(daemon.userID), socket \(socket))"
        }
        // One line: the error printer shows a line break as \x0a.
        return "; the daemons running: " + lines.joined(separator: "; ")
    }

    /// `error`'s message, and when nothing answered at ROOT's socket but a daemon of another
    /// user serves ROOT, who runs it and why this client does not ask it.
    func explain(_ error: ControlClientError) -> String {
        if case .untrusted(let socketPath, _) = error, let explained = explainOtherUsersSocket(error, socketPath) {
            return explained
        }
        guard case .noDaemon = error, socket == nil, let root,
            let status = try? FileDescriptor.currentWorkingDirectory.status(of: root.bytes)
        else { return "\(error)" }
        let me = ProcessIdentity.effectiveUserID
        guard let other = RunningDaemons.serving(root: status).first(where: { $0.userID != me }) else {
            return "\(error)"
        }
        let socket = other.socket.map { " on \(HumanText.name($0))" } ?? " on the default socket of its user"
        let trusted =
            me == 0
            ? "root's clients trust only root's daemons" : "a client trusts only its own user's daemons and root's"
        return "no quotawatch daemon of yours (user \(me)) listens on \(HumanText.name(socketPath)); "
            + "the one serving \(HumanText.name(root.bytes)), pid \(other.processID), runs as user \(other.userID)"
            + "\(socket): \(trusted), since another user's could answer in its place "
            + "(docs/service.md, 'Whose socket it is'); ask it as that user: "
            + "sudo -u '#\(other.userID)' quotawatch \(command) \(HumanText.name(root.bytes))"
    }

    /// When the socket refused is the one a daemon of another user was started on (its own
    /// `--socket`, the very path): the refusal stands, with who runs that daemon and how to ask
    /// it if it is the one meant. A socket of theirs linked or named elsewhere gets no hint.
    private func explainOtherUsersSocket(_ error: ControlClientError, _ socketPath: [UInt8]) -> String? {
        let me = ProcessIdentity.effectiveUserID
        guard
            let other = RunningDaemons.running().first(where: { $0.userID != me && $0.socket == socketPath })
        else { return nil }
        let root = other.root.map { ", serving \(HumanText.name($0))" } ?? ""
        return "\(error). It is the socket of pid \(other.processID) run by user \(other.userID)\(root): "
            + "if that is the daemon you meant, ask it as that user: "
            + "sudo -u '#\(other.userID)' quotawatch \(command) --socket \(HumanText.name(socketPath))"
    }

    /// The socket to ask: `--socket`, else ROOT's (found from its canonical path).
    var socketPath: [UInt8] {
        if let socket { return socket.bytes }
        return SocketPath.defaultPath(forRoot: RootOptions.canonicalBytes(root?.bytes ?? []))
    }
}
