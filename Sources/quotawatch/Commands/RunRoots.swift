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
        return run(matches.map { (CommandLineArgument(bytes: $0.root), $0.config) }, given)
    }

    /// `roots`: each with the config file its `roots:` pattern names, nil for `given`'s own.
    static func run(_ roots: [(CommandLineArgument, config: [UInt8]?)], _ given: EngineArguments) -> ExitStatus {
        let canonical = roots.map { RootOptions.canonicalBytes($0.0.bytes) }
        if let overlap = RootSet.firstOverlap(canonical) {
            Console.failure("\(overlap)")
            return .usage
        }
        let shown = canonical.map(EscapedName.string)
        let notifiers = ServiceNotifierGroup.notifiers(roots: shown, environment: ProcessInfo.processInfo.environment)
        var all: [EngineOptions] = []
        // One inotify instance and one fanotify group for every root, not one each.
        let backends = SharedBackends()
        for (index, (root, config)) in roots.enumerated() {
            var rootsOwn = given
            rootsOwn.socket = given.sockets.isEmpty ? nil : given.sockets[index]
            if let config { rootsOwn.policy.file = config }
            switch RunCommand.engineOptions(from: rootsOwn, root: root, notifier: notifiers?[index]) {
            case .ready(var options):
                options.waitsForSignals = false
                options.sharedBackends = backends
                all.append(options)
            case .exit(let status):
                // Before anything runs, as for one root: a bad ROOT is the command line's fault.
                return status
            }
        }

        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()
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
        let engines = all.map(LiveEngine.init)
        let exits = Mutex([EngineExit?](repeating: nil, count: engines.count))
        let running = Atomic<Int>(engines.count)
        let threads = engines.enumerated().map { index, engine in
            JoinableThread(name: "root \(index)") {
                let exit = engine.run(progress: nil)
                exits.withLock { $0[index] = exit }
                if case .failure(let failure) = exit {
                    let left = running.subtract(1, ordering: .acquiringAndReleasing).newValue
                    Log.error("\(shown[index]): \(failure.description) (\(left) other root(s) still watched)")
                    if left == 0 { signals.stop() }
                } else if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    signals.stop()
                }
            }
        }
        let waiter = JoinableThread(name: "signals") {
            while let signal = signals.wait() {
                guard signal == TerminationSignals.hangup else {
                    for engine in engines { engine.shutdown(signal: signal) }
                    return
                }
                for engine in engines { engine.reload() }
            }
        }
        for thread in threads { thread.join() }
        signals.stop()
        waiter.join()
        return status(of: exits.withLock { $0 }.compactMap { $0 })
    }

    /// 0 after a signal or a stop; when every root failed, the first failure's status.
    private static func status(of exits: [EngineExit]) -> ExitStatus {
        if let stopped = exits.first(where: { if case .failure = $0 { false } else { true } }) {
            return RunCommand.report(stopped)
        }
        return exits.first.map(RunCommand.report) ?? .failure
    }
}
