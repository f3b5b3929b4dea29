import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// `quotawatch run ROOT`: the daemon.
enum RunCommand {
    static let subcommand = Subcommand(
        name: "run",
        abstract: "Crawl a root once, then keep every directory's tally exact from inotify events.",
        discussion: """
            Answers 'quotawatch status' on a Unix socket (mode 0600). Without --socket the socket is
            $XDG_RUNTIME_DIR/quotawatch/<name>.sock, /run/quotawatch/<name>.sock for root, or
            /tmp/quotawatch-<uid>/<name>.sock, where <name> is the root's last component and a hash
            of its absolute path. SIGINT and SIGTERM stop it cleanly and remove the socket;
            SIGHUP reads the --config file again (a bad one is reported and the rules in force
            stay). Quota, level and forecast events go to the --events stream.
            Exit status: 0 after a termination signal, 1 on a failure (the root deleted or moved
            away, another daemon on the socket, inotify unavailable), 64 on bad usage or a ROOT
            that is missing or not a directory, 65 on a bad config, 66 on an unreadable one.
            """,
        arguments: [ArgumentSpec(name: "root", help: "The directory to watch.")],
        options: [
            OptionSpec(name: "--socket", valueName: "<path>", help: "Control socket path (default: see above)."),
            OptionSpec(
                name: "--events", valueName: "<format>",
                help: "Write engine events to stdout; the only format is 'jsonl' (one JSON object per line)."),
            OptionSpec(name: "--trace", help: "Print every inotify event to stderr, named as inotifywait names them."),
            OptionSpec(name: "--one-file-system", help: "Skip directories on other file systems (du -x)."),
            OptionSpec(
                name: "--backend", valueName: "<auto|inotify|fanotify>", help: "How changes are seen (default auto)."),
            OptionSpec(
                name: "--workers", valueName: "<n>",
                help: "Threads for the first crawl (default: one per core, at least 2)."),
            OptionSpec(
                name: "--settle", valueName: "<ms>",
                help: "Re-stat a file under writes at most this often (default 20)."),
            OptionSpec(
                name: "--poll-interval", valueName: "<s>", help: "Re-list unwatchable subtrees this often (default 2)."),
        ] + RunPolicy.options + RunCleanup.options + RunHistory.options + RunMetrics.options + RunService.options,
        run: run)

    /// Every option of `run`; `watch` takes them all, so an option added here (or to the
    /// option lists this one joins) works there too.
    static var engineOptionSpecs: [OptionSpec] { subcommand.options }

    /// What ``engineOptions(from:command:)`` made of the command line.
    enum Prepared {
        case ready(EngineOptions)
        /// Nothing to run: the error was reported, exit with this status.
        case exit(ExitStatus)
    }

    /// The engine's options from run's command line, with ROOT checked: shared by `run` and
    /// `watch`. Observers it adds may start threads (the notifier's sender, the history
    /// writer), so the caller blocks the termination signals first: a thread started with
    /// them open could take a SIGTERM or SIGHUP and end the process.
    static func engineOptions(from arguments: ParsedArguments, command: String) throws(UsageError) -> Prepared {
        try RunService.configureLog(arguments, command: command)
        let root = try RootOptions.singleRoot(arguments, command: command)
        if let format = arguments.values["--events"], format.text != "jsonl" {
            throw UsageError(
                message: "Unknown event format '\(format.text)': the only format is 'jsonl'", command: command)
        }
        let workers = try arguments.integer("--workers", default: CrawlOptions().workers, in: 1...256, command: command)
        let settle = try arguments.integer("--settle", default: 20, in: 1...10_000, command: command)
        let poll = try arguments.integer("--poll-interval", default: 2, in: 1...3600, command: command)

        let policySource = RunPolicy.Source(arguments)
        let policy: PolicyConfig
        do {
            policy = try policySource.build()
        } catch {
            if error.status == .usage { throw UsageError(message: error.description, command: command) }
            Log.write(.error, "Error: \(error.description)")
            return .exit(error.status)
        }

        // A bad ROOT is a usage error, as for scan, before anything is started.
        do {
            try TreeScanner().openRoot(root.bytes).descriptor.close()
        } catch {
            return .exit(RootOptions.report(error))
        }

        let absolute = RootOptions.canonicalBytes(root.bytes)
        var options = EngineOptions(
            root: root.bytes, rootDisplay: EscapedName.string(absolute),
            socketPath: arguments.values["--socket"]?.bytes ?? SocketPath.defaultPath(forRoot: absolute))
        options.crawl = CrawlOptions(workers: workers, oneFileSystem: arguments.has("--one-file-system"))
        options.settle = .milliseconds(settle)
        options.pollInterval = .seconds(poll)
        options.emitsEvents = arguments.values["--events"] != nil
        options.traces = arguments.has("--trace")
        options.backend = try backendChoice(arguments, command: command)
        options.policy = policy
        options.cleanup = RunCleanup.options(arguments, absoluteRoot: absolute)
        try RunHistory.apply(arguments, absoluteRoot: absolute, to: &options, command: command)
        do {
            if let state = options.cleanup.stateDirectory { try StateDirectory.checkTrusted(state) }
        } catch {
            Log.write(.error, "Error: \(error)")
            return .exit(.failure)
        }
        RunService.addObservers(to: &options)
        if policySource.file != nil {
            options.reloadPolicy = { () throws(RunPolicy.Failure) -> PolicyConfig in try policySource.build() }
        }
        return .ready(options)
    }

    /// `--backend`: auto (fanotify where it can work, else inotify), inotify or fanotify.
    static func backendChoice(_ arguments: ParsedArguments, command: String) throws(UsageError) -> BackendChoice {
        guard let word = arguments.values["--backend"] else { return .auto }
        guard let choice = BackendChoice(rawValue: word.text) else {
            throw UsageError(
                message:
                    "Unknown backend '\(EscapedName.string(word.bytes))' for --backend: use auto, inotify or fanotify",
                command: command)
        }
        return choice
    }

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        TerminationSignals.block()
        var options: EngineOptions
        switch try engineOptions(from: arguments, command: "run") {
        case .ready(let ready): options = ready
        case .exit(let status): return status
        }

        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()

        guard let metrics = try RunMetrics.start(arguments, adding: &options) else { return .failure }
        defer { metrics.stop() }
        let progress = ProgressLine(enabled: Console.errorIsTerminal)
        let engine = LiveEngine(options: options)
        let exit = engine.run { progress.update($0) }
        progress.clear()
        return report(exit)
    }

    /// Says why the engine stopped; 0 after a signal or a stop.
    static func report(_ exit: EngineExit) -> ExitStatus {
        switch exit {
        case .stopped:
            return .success
        case .signal(let signal):
            Log.notice("stopped by \(TerminationSignals.name(signal))")
            return .success
        case .failure(let message):
            Log.error(message)
            return .failure
        }
    }
}
