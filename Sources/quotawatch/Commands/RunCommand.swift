import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchSystem

/// `quotawatch run ROOT`: the daemon.
enum RunCommand {
    static let subcommand = Subcommand(
        name: "run",
        abstract: "Crawl a root (or several) once, then keep every directory's tally exact from kernel events.",
        discussion: """
            Answers 'quotawatch status' on a Unix socket (mode 0600). Without --socket the socket is
            $XDG_RUNTIME_DIR/quotawatch/<name>.sock, /run/quotawatch/<name>.sock for root, or
            /tmp/quotawatch-<uid>/<name>.sock, where <name> is the root's last component and a hash
            of its absolute path. Several ROOTs are served by one daemon, each as its own root: its
            own socket (at its default path, or one --socket per ROOT in order), quotas, cleaners, state
            directory and history, one /metrics for all with a root label; nested roots are refused,
            and a root that fails (deleted, unreadable) stops alone while the others go on.
            SIGINT and SIGTERM stop it cleanly and remove the socket;
            SIGHUP reads the --config file again (a bad one is reported and the rules in force
            stay). Quota, level and forecast events go to the --events stream.
            Exit status: 0 after a termination signal, 1 on a failure while running (the root
            deleted or moved away), 64 on bad usage or a ROOT that is missing or not a directory,
            65 on a bad config, 66 on an unreadable one, 69 when another daemon has the socket or
            already watches ROOT, 71 when the system refuses a resource (inotify, descriptors),
            73 when cleaning cannot be made safe, 74 when ROOT cannot be opened or crawled.
            """,
        arguments: [
            ArgumentSpec(
                name: "root",
                help: "The directory to watch; several are served by one daemon (default: the config's roots:).",
                isOptional: true, isRepeated: true)
        ],
        options: Options.self, run: run)

    /// `run ROOT` and its engine options.
    struct Options: CommandOptions {
        static let declarations = EngineArguments.declarations

        var roots: [CommandLineArgument]
        var engine: EngineArguments

        init(_ arguments: ParsedArguments) throws(UsageError) {
            engine = try EngineArguments(arguments)
            roots = arguments.positionals
        }

        func validate() throws(ValidationError) {
            try engine.validate()
            if roots.isEmpty && engine.policy.file == nil {
                throw ValidationError(
                    "Missing expected argument '<root>': name the directories to watch, or give a --config whose "
                        + "roots: lists them")
            }
            if roots.count > 1, !engine.sockets.isEmpty, engine.sockets.count != roots.count {
                throw ValidationError(
                    "\(engine.sockets.count) --socket path(s) for \(roots.count) roots: give one --socket per ROOT, in "
                        + "the same order, or none (each root then listens at its default path, which "
                        + "'quotawatch status ROOT' finds)")
            }
        }
    }

    /// What ``engineOptions(from:root:)`` made of the command line.
    enum Prepared {
        case ready(EngineOptions)
        /// Nothing to run: the error was reported, exit with this status.
        case exit(ExitStatus)
    }

    /// The engine's options, with ROOT checked: shared by `run` and `watch`. Observers it adds
    /// may start threads (the notifier's sender, the history writer), so the caller blocks the
    /// termination signals first: a thread started with them open could take a SIGTERM or
    /// SIGHUP and end the process.
    ///
    /// `built`: the policy `given` makes, built by a caller preparing many roots of one config
    /// (`run ROOT ROOT…`), which has set up the log too; nil: both are done here.
    static func engineOptions(
        from given: EngineArguments, root: CommandLineArgument,
        notifier: ServiceNotifier? = ServiceNotifier.forServiceManager(
            environment: ProcessInfo.processInfo.environment),
        built: PolicyConfig? = nil
    ) -> Prepared {
        let policy: PolicyConfig
        if let built {
            policy = built
        } else {
            RunService.configureLog(level: given.logLevel)
            do {
                policy = try given.policy.build()
            } catch {
                Log.error(error.description)
                return .exit(error.status)
            }
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
            socketPath: given.socket?.bytes ?? SocketPath.defaultPath(forRoot: absolute))
        options.crawl = CrawlOptions(workers: given.workers, oneFileSystem: given.oneFileSystem)
        options.settle = .milliseconds(given.settle)
        options.pollInterval = .seconds(given.pollInterval)
        options.verification = given.verification
        options.backend = given.backend
        options.emitsEvents = given.events != nil
        options.traces = given.trace
        options.policy = policy
        options.participants.append(
            HookParticipant(hooks: policy.hooks, workingDirectory: root.bytes, root: options.rootDisplay))
        let cleanup = given.cleanup.cleanup(absoluteRoot: absolute)
        options.participants.append(CleanupParticipant(options: cleanup, rootDisplay: options.rootDisplay))
        options.participants.append(LeftoverParticipant())
        if let settings = given.history.settings(
            config: policy.history, absoluteRoot: absolute, stateDirectoryBase: given.cleanup.stateDirectoryBase)
        {
            options.observers.append(HistoryRecorder(settings: settings))
        }
        do {
            if let state = cleanup.stateDirectory { try StateDirectory.checkTrusted(state) }
        } catch {
            Log.error("\(error)")
            return .exit(.failure)
        }
        if let state = cleanup.stateDirectory, let refused = lockRoot(state, options: options) { return .exit(refused) }
        RunService.addObservers(to: &options, notifier: notifier)
        if given.policy.file != nil {
            let source = given.policy
            options.reloadPolicy = { () throws(RunPolicy.Failure) -> PolicyConfig in try source.build() }
        }
        return .ready(options)
    }

    /// One daemon per ROOT (``RootLock``): the exit status when another one holds the lock, nil
    /// when it is taken, or cannot be (a state directory that cannot be made, which `--clean`
    /// and history report in their own words).
    private static func lockRoot(_ state: [UInt8], options: EngineOptions) -> ExitStatus? {
        do {
            _ = try RootLock.take(
                directory: state, processID: ProcessIdentity.processID,
                socketPath: RootOptions.absoluteBytes(options.socketPath))
            return nil
        } catch {
            switch error {
            case .system(let path, let action, let cause):
                Log.warning(
                    "could not \(action) \(HumanText.name(path)) (\(cause)), so nothing keeps a second daemon off "
                        + "\(HumanText.escaped(options.rootDisplay))")
                return nil
            case .held(let path, let holder):
                let (processID, socket) = RootLock.holder(holder)
                // This very process holds it, for a root it served before (a directory removed
                // and made again under a roots: glob): its lock is still ours.
                if processID == "\(ProcessIdentity.processID)" { return nil }
                let who = processID.map { "pid \($0)" } ?? "a process that has not said its pid yet"
                let shown = socket.map { HumanText.name($0) }
                // Exits as a socket another daemon holds does: the same cause, a daemon already serving.
                let failure = EngineFailure.controlSocket(
                    "another daemon (\(who), socket \(shown ?? "not written yet")) already watches "
                        + "\(HumanText.escaped(options.rootDisplay)) and holds \(HumanText.name(path)); stop it "
                        + "first, or ask it: quotawatch status --socket \(shown ?? "PATH")")
                Log.error(failure.description)
                return ExitStatus(rawValue: failure.exitCode)
            }
        }
    }

    static func run(_ given: Options) -> ExitStatus {
        TerminationSignals.block()
        guard given.roots.count == 1 else {
            return given.roots.isEmpty
                ? RunRoots.runConfigured(given.engine) : RunRoots.run(given.roots.map { ($0, nil) }, given.engine)
        }
        var options: EngineOptions
        switch engineOptions(from: given.engine, root: given.roots[0]) {
        case .ready(let ready): options = ready
        case .exit(let status): return status
        }

        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()
        MemoryTuning.keepOneArena()

        guard let metrics = RunMetrics.start(given.engine.metrics, adding: &options) else { return .failure }
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
        case .failure(let failure):
            // A kind of its own per start-up failure (EngineFailure.exitCode), 1 at run time.
            Log.error(failure.description)
            return ExitStatus(rawValue: failure.exitCode)
        }
    }
}
