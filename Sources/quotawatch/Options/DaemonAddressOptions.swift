import QuotaWatchEngine

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

    func validate() throws(ValidationError) {
        if socket == nil && root == nil {
            throw ValidationError("Name the watched root or its socket: quotawatch \(command) ROOT")
        }
    }

    /// The socket to ask: `--socket`, else ROOT's (found from its canonical path).
    var socketPath: [UInt8] {
        if let socket { return socket.bytes }
        return SocketPath.defaultPath(forRoot: RootOptions.canonicalBytes(root?.bytes ?? []))
    }
}
