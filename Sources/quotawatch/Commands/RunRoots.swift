import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// `run ROOT ROOT…`: one process serving several roots, each as `run ROOT` serves one.
///
/// Each root has its own engine on its own thread, with everything it has alone: its socket
/// at its default path, its quotas, cleaners, hooks (`QUOTAWATCH_ROOT`), state directory,
/// lock, history and audit log. What the process has once is shared: one inotify instance and
/// one fanotify group, each root's changes dispatched by key (``SharedBackends``), one thread waits for the
/// signals and tells every engine, one `/metrics` (and textfile) shows every root with its
/// `root` label, and systemd hears one service (``ServiceNotifierGroup``). A root that fails
/// while running (deleted, unreadable, its disk full) stops alone; the others go on.
enum RunRoots {
    /// The roots a config's `roots:` matches now, each with the config its pattern names.
    static func runConfigured(_ given: EngineArguments) -> ExitStatus {
        RunService.configureLog(level: given.logLevel)
        let config: PolicyConfig
        do {
            config = try given.policy.build()
        } catch {
            Log.error(error.description)
            return error.status
        }
        let file = given.policy.file.map(HumanText.name) ?? "the config"
        guard !config.roots.isEmpty else {
            Console.failure(
                "no ROOT was given and \(file) has no roots: list; name the directories to watch, or add "
                    + "roots: ['/home/*'] to the config")
            return .usage
        }
        let matches = RootPatterns.expand(config.roots)
        guard !matches.isEmpty else {
            let patterns = config.roots.map { HumanText.name($0.pattern) }.joined(separator: ", ")
            Console.failure("the roots: of \(file) (\(patterns)) match no directory now; make one, or fix the list")
            return .usage
        }
        return run(matches.map { (CommandLineArgument(bytes: $0.root), $0.config) }, given, patterns: config.roots)
    }

    /// `roots`: each with the config file its `roots:` pattern names, nil for `given`'s own.
    /// `patterns`: the `roots:` they came from; a directory that comes to match one of them
    /// later is served from then on (``RootPatternWatcher``).
    static func run(
        _ roots: [(CommandLineArgument, config: [UInt8]?)], _ given: EngineArguments, patterns: [RootPattern] = []
    ) -> ExitStatus {
        let canonical = roots.map { RootOptions.canonicalBytes($0.0.bytes) }
        if let overlap = RootSet.firstOverlap(canonical, identity: directoryIdentity) {
            Console.failure("\(overlap)")
            return .usage
        }
        let shown = canonical.map(EscapedName.string)
        let notifiers = ServiceNotifierGroup.notifiers(roots: shown, environment: ProcessInfo.processInfo.environment)
        var all: [EngineOptions] = []
        // One inotify instance and one fanotify group for every root, not one each.
        let backends = SharedBackends()
        // One `--events` writer and one wait for mount changes, not a thread of each per root.
        let services = SharedRootServices(concurrentCrawls: given.workers)
        defer { services.stop() }
        // What every root's options share, whether it is served from the start or matched later.
        @Sendable func rootsOptions(
            _ root: CommandLineArgument, config: [UInt8]?, socket: CommandLineArgument?, notifier: ServiceNotifier?,
            built: PolicyConfig? = nil
        ) -> RunCommand.Prepared {
            var rootsOwn = given
            rootsOwn.socket = socket
            if let config { rootsOwn.policy.file = config }
            // What the root's own setup logs names the root it is about.
            let prepared = ThreadSubject.with(EscapedName.string(RootOptions.canonicalBytes(root.bytes))) {
                RunCommand.engineOptions(from: rootsOwn, root: root, notifier: notifier, built: built)
            }
            guard case .ready(var options) = prepared else { return prepared }
            options.waitsForSignals = false
            options.sharedBackends = backends
            options.sharedServices = services
            return .ready(options)
        }
        // Each config file read once for the roots served from the start, not once per root:
        // the same rules (and the same warnings, said once) for every root that names it.
        RunService.configureLog(level: given.logLevel)
        var policies: [[UInt8]?: PolicyConfig] = [:]
        for (index, (root, config)) in roots.enumerated() {
            let socket = given.sockets.isEmpty ? nil : given.sockets[index]
            if policies[config] == nil {
                var rootsOwn = given
                if let config { rootsOwn.policy.file = config }
                do {
                    policies[config] = try rootsOwn.policy.build()
                } catch {
                    Log.error(error.description)
                    return error.status
                }
            }
            switch rootsOptions(
                root, config: config, socket: socket, notifier: notifiers?[index], built: policies[config])
            {
            case .ready(let options):
                all.append(options)
            case .exit(let status):
                // Before anything runs, as for one root: a bad ROOT is the command line's fault.
                return status
            }
        }

        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()
        MemoryTuning.keepOneArena()
        guard let metrics = RunMetrics.start(given.metrics, adding: &all) else { return .failure }
        defer { metrics.stop() }

        let signals: TerminationSignalWaiter
        do {
            signals = try TerminationSignalWaiter()
        } catch {
            Console.failure("cannot wait for signals: \(error)")
            return .failure
        }
        defer { signals.close() }
        // With a glob the daemon waits for roots to come even when none is left, until a signal.
        let waitsForRoots = patterns.contains(where: \.isGlob)
        let stopWaiting: @Sendable () -> Void = { signals.stop() }
        let served = ServedEngines(allEnded: waitsForRoots ? nil : stopWaiting)
        let exporters = metrics.exporters
        for (options, root) in zip(all, canonical) { served.start(options, root: root) }
        // A directory that failed to start is tried again only once it is another directory
        // (made again): not at every name made beside it.
        let failed = Mutex<[[UInt8]: UInt64]>([:])
        let watcher = RootPatternWatcher.start(patterns) { matches in
            for match in matches
            where RootSet.firstOverlap(served.roots + [match.root], identity: directoryIdentity) == nil {
                let inode = (try? FileDescriptor.currentWorkingDirectory.statusFollowingSymlinks(of: match.root))?.inode
                guard inode != failed.withLock({ $0[match.root] }) else { continue }
                guard
                    case .ready(var options) = rootsOptions(
                        CommandLineArgument(bytes: match.root), config: match.config, socket: nil, notifier: nil)
                else {
                    failed.withLock { $0[match.root] = inode }
                    continue
                }
                exporters.add(to: &options)
                Log.notice("\(EscapedName.string(match.root)) now matches the roots: list: watching it too")
                served.start(options, root: match.root)
            }
        }
        if let watcher {
            let matchAgain: @Sendable () -> Void = { watcher.matchAgain() }
            served.rootEnded.withLock { $0 = matchAgain }
        }
        let waiter = JoinableThread(name: "signals") {
            while let signal = signals.wait() {
                guard signal == TerminationSignals.hangup else {
                    served.shutdown(signal: signal)
                    return
                }
                served.reload()
            }
        }
        if waitsForRoots {
            // Only a termination signal ends the wait: 0, as for one root, whatever the roots
            // that went away meanwhile said.
            waiter.join()
            watcher?.stop()
            served.joinAll()
            Log.notice("stopped by a signal")
            return .success
        } else {
            served.joinAll()
            watcher?.stop()
            signals.stop()
            waiter.join()
        }
        return status(of: served.exits)
    }

    /// The directory a path leads to, for telling roots apart whatever their paths.
    @Sendable private static func directoryIdentity(_ path: [UInt8]) -> DirectoryIdentity? {
        guard let status = try? FileDescriptor.currentWorkingDirectory.statusFollowingSymlinks(of: path) else {
            return nil
        }
        return DirectoryIdentity(device: status.device, inode: status.inode)
    }

    /// 0 after a signal or a stop; when every root failed, the first failure's status.
    private static func status(of exits: [EngineExit]) -> ExitStatus {
        if let stopped = exits.first(where: { if case .failure = $0 { false } else { true } }) {
            return RunCommand.report(stopped)
        }
        return exits.first.map(RunCommand.report) ?? .failure
    }
}
