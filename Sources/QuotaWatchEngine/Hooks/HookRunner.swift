import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Runs the alert hooks for the events the engine hands it, without ever making the engine wait.
///
/// Each hook has a thread and a ``HookBacklog`` of its own: ``submit(_:)`` only takes a lock
/// to add the event to the backlog of every hook that wants it, and each thread runs one event
/// at a time, so at most one instance of a hook runs at once. A run gets the event's JSON line
/// on stdin and its `QUOTAWATCH_*` variables (plus the daemon's `PATH`, `HOME` and `LANG`) as
/// its whole environment; see ``ChildProcess`` for everything else it gets and does not get.
package final class HookRunner: Sendable {
    /// One finished run, for logs and tests.
    package struct Run: Sendable {
        package var hookName: String
        package var event: HookEvent
        /// Nil when the command exited with status 0.
        package var failure: HookFailure?
    }

    /// What one hook has done so far.
    package struct Statistics: Sendable, Equatable {
        package var hookName: String
        package var runs: Int
        package var failures: Int
        /// Lost because the queue was full (the oldest go first).
        package var dropped: Int
        /// Dropped by the rate limit per path.
        package var rateLimited: Int
        /// Replaced by a later event for the same path and kind while waiting.
        package var coalesced: Int
        package var waiting: Int
    }

    private let workers: [HookWorker]

    /// Starts one thread per hook.
    ///
    /// - Parameters:
    ///   - environment: passed to every run before the event's own variables; by default the
    ///     daemon's `PATH`, `HOME` and `LANG`.
    ///   - workingDirectory: where runs start; nil keeps the daemon's.
    ///   - killGrace: how long a timed-out run's process group has between SIGTERM and SIGKILL.
    ///   - now: the clock of the rate limit.
    ///   - onFailure: called on the hook's thread for every failed run.
    ///   - onRun: called on the hook's thread after every run, failed or not.
    package init(
        hooks: [HookSpec], environment: [(name: String, value: String)] = HookRunner.daemonEnvironment(),
        workingDirectory: [UInt8]? = nil, killGrace: Duration = .seconds(2),
        now: @escaping @Sendable () -> Moment = { .now },
        onFailure: @escaping @Sendable (HookFailure) -> Void, onRun: (@Sendable (Run) -> Void)? = nil
    ) throws(Errno) {
        let base = environment.map { Array("\($0.name)=\($0.value)".utf8) }
        var workers: [HookWorker] = []
        for hook in hooks {
            let worker: HookWorker
            do {
                worker = try HookWorker(
                    hook: hook,
                    settings: HookWorker.Settings(
                        environment: base, workingDirectory: workingDirectory, killGrace: killGrace, now: now,
                        onFailure: onFailure, onRun: onRun))
            } catch {
                for started in workers { started.stop() }
                throw error
            }
            workers.append(worker)
        }
        self.workers = workers
    }

    deinit { stop() }

    /// Queues `event` for every hook that wants it, but the one named `excluded`. Never
    /// waits for a hook.
    package func submit(_ event: HookEvent, except excluded: String? = nil) {
        for worker in workers where worker.hook.wants(event.kind) && worker.hook.name != excluded {
            worker.submit(event)
        }
    }

    /// Queues `event` for the hook named `hookName` alone, if it wants it.
    package func submit(_ event: HookEvent, to hookName: String) {
        for worker in workers where worker.hook.name == hookName && worker.hook.wants(event.kind) {
            worker.submit(event)
        }
    }

    package func statistics() -> [Statistics] { workers.map { $0.statistics() } }

    /// Kills the runs under way (their whole process groups), forgets the waiting events and
    /// returns once every hook thread has finished. Runs ended this way are not reported as
    /// failures. Calling it again does nothing.
    package func stop() {
        for worker in workers { worker.requestStop() }
        for worker in workers { worker.stop() }
    }

    /// `PATH`, `HOME` and `LANG` as the daemon has them; `PATH` has a conventional default when
    /// the daemon has none, so that commands named without a slash can still be found.
    package static func daemonEnvironment() -> [(name: String, value: String)] {
        let own = ProcessInfo.processInfo.environment
        var environment = [
            (name: "PATH", value: own["PATH"] ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        ]
        for name in ["HOME", "LANG"] {
            if let value = own[name] { environment.append((name, value)) }
        }
        return environment
    }
}
