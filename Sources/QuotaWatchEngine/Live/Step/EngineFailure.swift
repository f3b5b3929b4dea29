/// Why the engine could not start, or stopped on its own, by kind: the CLI maps each kind to
/// an exit code of its own (``exitCode``), so a supervisor or a script can tell a bad root
/// from a busy socket without reading the message. The message names the bad value and the
/// way out, as before.
package enum EngineFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The root cannot be opened or crawled at start.
    case root(String)
    /// The control socket cannot be served: another daemon has it, or its directory is not safe.
    case controlSocket(String)
    /// The change backend, the signal waiter or another resource of the system cannot start
    /// (an inotify instance limit, descriptors).
    case system(String)
    /// Cleaning cannot be made safe: no state directory, an audit log that cannot be opened or
    /// is not trusted, a deleter that cannot be prepared.
    case cleanup(String)
    /// The alert hooks cannot be started.
    case hooks(String)
    /// While running: the root went away, or reading the change queue failed.
    case runtime(String)

    package var description: String {
        switch self {
        case .root(let message), .controlSocket(let message), .system(let message), .cleanup(let message),
            .hooks(let message), .runtime(let message):
            message
        }
    }

    /// The exit status of `quotawatch run` for this failure, from sysexits(3): 74 the root
    /// (EX_IOERR), 69 the socket (EX_UNAVAILABLE), 71 the system and the hooks (EX_OSERR), 73
    /// cleaning's state (EX_CANTCREAT), 1 for everything that happens after the start. None is
    /// 64 to 66 (bad usage, a bad or unreadable config), after which the systemd unit never
    /// restarts: a root not mounted yet, or a socket still held by a daemon on its way out, is
    /// tried again as before.
    package var exitCode: Int32 {
        switch self {
        case .root: 74
        case .controlSocket: 69
        case .system, .hooks: 71
        case .cleanup: 73
        case .runtime: 1
        }
    }
}
