import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTerminal

/// `quotawatch watch [ROOT]`: the live view, in-process or attached to a daemon.
enum WatchCommand {
    static let subcommand = Subcommand(
        name: "watch",
        abstract: "Show the tree, its quotas, level, leftovers and events live in the terminal.",
        discussion: """
            With ROOT, runs the engine here with every option of 'run' (the view is its front end;
            other clients reach it on the same socket), unless a daemon already answers on ROOT's
            socket (or --socket PATH): then it attaches to that daemon, as 'watch --socket PATH'
            without ROOT does, and names the options of 'run' it ignores. ROOT's socket is the one
            'run' uses (see 'quotawatch run --help'). Keys: arrows move, enter opens a directory,
            backspace goes up, s sorts by size, name or growth, a shows apparent sizes, l shows the
            event log in full, c runs every cleaner now (after a confirmation), p pauses, ? or h
            shows them all, q quits. The terminal must be at least 80x24; the view ends when the
            terminal goes away. Attached, the event log starts with the daemon's last events from
            before (as many as the log keeps), above a line saying they came before it attached.
            d deletes the selected file or directory whole, as 'clean --path' does, after a
            confirmation showing its path, size and files (the engine must run with --clean).
            --ios adds the app's size as the phone shows it to the status line (see 'scan --ios').
            When stdout is not a terminal (or TERM is unset, dumb or unknown to terminfo), prints one
            line per event instead: local ISO 8601 time, the event's kind as its JSON "event" field,
            then its details.
            Exit status: 0 on q, a termination signal or a lost terminal, 1 on a failure or when the
            daemon attached to goes away, 64 on bad usage (and the other statuses of 'run' for a bad
            config).
            """,
        arguments: [
            ArgumentSpec(
                name: "root", help: "The directory to watch (without it, --socket names a daemon).",
                isOptional: true)
        ],
        options: Options.self, run: run)

    struct Options: CommandOptions {
        static let declarations =
            EngineArguments.declarations + ByteFormatOptions.declarations + PhoneStorageOptions.declarations

        var root: CommandLineArgument?
        var engine: EngineArguments
        var format: ByteFormatOptions
        var phone: PhoneStorageOptions.Request?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            format = ByteFormatOptions(arguments)
            phone = try PhoneStorageOptions.request(arguments)
            engine = try EngineArguments(arguments)
            root = try arguments.optional("root")
        }

        func validate() throws(ValidationError) {
            try format.validate()
            try engine.validate()
            if root == nil && engine.socket == nil {
                throw ValidationError("Name the directory to watch, or a daemon's socket: quotawatch watch ROOT")
            }
        }
    }

    static func run(_ given: Options) throws(UsageError) -> ExitStatus {
        let format = given.format.format
        // A terminal curses cannot drive (no TERM, TERM=dumb as in Emacs' shell, a TERM terminfo
        // does not know) gets the lines instead of a screen; the unset or unknown TERM is named.
        let terminalName = ProcessInfo.processInfo.environment["TERM"] ?? ""
        let onTerminal = FileDescriptor.standardOutput.isTerminal && FileDescriptor(rawValue: 0).isTerminal
        let unknownTerminal = terminalName == "dumb" ? nil : TerminalScreen.unknownTerminal(terminalName)
        let screen = onTerminal && terminalName != "dumb" && unknownTerminal == nil
        if onTerminal, let unknownTerminal {
            Console.warning("\(unknownTerminal); printing event lines instead")
        }
        let jsonLines = given.engine.events != nil
        // The bundle is crawled once, now: the figure follows the sandbox, not the bundle.
        let phone = try PhoneStorageOptions.measure(given.phone, command: "watch")

        guard let root = given.root else {
            return attach(given.engine.socket?.bytes ?? [], screen: screen, format: format, phone: phone)
        }
        // Before any thread starts (``RunCommand/engineOptions(from:root:)`` says why).
        TerminationSignals.block()
        var options: EngineOptions
        switch RunCommand.engineOptions(from: given.engine, root: root) {
        case .ready(let ready): options = ready
        case .exit(let status): return status
        }
        if let answered = WatchAttached.probe(options.socketPath) {
            if let error = answered, error.forbidsAttaching {
                Console.failure("\(error)")
                return .failure
            }
            return attach(
                options.socketPath, screen: screen, format: format, phone: phone,
                warning: ignoredWhenAttached(given.engine.given, root: options.rootDisplay, socket: options.socketPath))
        }
        var startWarning: String?
        if given.engine.socket == nil, let other = otherDaemon(serving: options) {
            if let socket = other.socket, WatchAttached.probe(socket) != nil {
                return attach(
                    socket, screen: screen, format: format, phone: phone,
                    warning: Diagnostic.note(
                        "a daemon (pid \(other.processID)) already serves \(options.rootDisplay) "
                            + "at \(HumanText.name(socket)): showing it instead of crawling ROOT again"))
            }
            startWarning = Diagnostic.warning(
                "a daemon (pid \(other.processID)) already watches \(options.rootDisplay) but "
                    + "does not answer at \(HumanText.name(other.socket ?? options.socketPath)); this view runs an "
                    + "engine of its own, with its own options (attach with 'quotawatch watch --socket PATH')")
        }
        guard let metrics = RunMetrics.start(given.engine.metrics, adding: &options, announces: !screen)
        else { return .failure }
        defer { metrics.stop() }
        let session = WatchInProcess.session(options, screen: screen, phone: phone)
        // Where the metrics are, on the screen: a line on stderr before it would be hidden behind it.
        if screen, let announcement = metrics.announcement { session.feed.log(announcement, warns: false) }
        if let startWarning {
            if screen { session.feed.log(startWarning, warns: true) } else { Console.error(startWarning + "\n") }
        }
        return screen
            ? WatchScreenLoop.run(session, format: format)
            : WatchPipe.run(session, format: format, jsonLines: jsonLines)
    }

    /// The warning for engine options given to `watch ROOT` that the daemon already serving
    /// ROOT makes moot (its own apply); nil when none was given.
    static func ignoredWhenAttached(_ given: [String], root: String, socket: [UInt8]) -> String? {
        let kept = [EngineArguments.socket.spec.name, RunService.logLevel.spec.name]
        let ignored = given.filter { !kept.contains($0) }
        guard !ignored.isEmpty else { return nil }
        return Diagnostic.warning(
            "a daemon already serves \(root) (socket \(HumanText.name(socket))): "
                + "showing it with its own options; \(ignored.joined(separator: ", ")) ignored "
                + "(stop that daemon to run the engine here with them)")
    }

    /// Another `run` or `watch` process whose ROOT is this one's, found from /proc: the
    /// service started with a `--socket` of its own, which the default path does not reach.
    private static func otherDaemon(serving options: EngineOptions) -> RunningDaemons.Daemon? {
        guard
            let root = try? FileDescriptor.currentWorkingDirectory.openDirectory(options.root, followSymlinks: true)
        else { return nil }
        defer { root.close() }
        guard let status = try? root.status() else { return nil }
        return RunningDaemons.serving(root: status).first
    }

    private static func attach(
        _ socket: [UInt8], screen: Bool, format: ByteFormat, phone: PhoneStorageOptions.Measured?,
        warning: String? = nil
    ) -> ExitStatus {
        let session: WatchSession
        do {
            session = try WatchAttached.session(socket: socket, screen: screen, phone: phone)
        } catch {
            Console.failure("\(error)")
            return .failure
        }
        if let warning {
            // On the screen, in its log: a line on the terminal would be drawn over.
            if screen { session.feed.log(warning, warns: true) } else { Console.error(warning + "\n") }
        }
        return screen ? WatchScreenLoop.run(session, format: format) : WatchPipe.run(session, format: format)
    }
}
