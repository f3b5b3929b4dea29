import QuotaWatchCore
import QuotaWatchPolicy

package struct EngineOptions: Sendable {
    package var root: [UInt8]
    /// The root as shown in reports: absolute, escaped.
    package var rootDisplay: String
    package var socketPath: [UInt8]
    package var crawl = CrawlOptions()
    /// Changes to one file are stat'ed at most once per this period.
    package var settle: Duration = .milliseconds(20)
    /// Subtrees without a watch are re-listed this often.
    package var pollInterval: Duration = .seconds(2)
    /// The background verification sweep (`--verify-every`, `--verify-budget`).
    package var verification = VerificationSweep.Settings()
    package var emitsEvents = false
    package var traces = false
    /// `--backend`: inotify watches, a fanotify filesystem mark, or fanotify where it works.
    package var backend: BackendChoice = .inotify
    /// The process's one inotify instance and one fanotify group, when it serves several roots
    /// (``SharedBackends``): the root gets a view of the kind `backend` chooses. Nil for a
    /// process serving one root, which opens its own.
    package var sharedBackends: SharedBackends?
    /// The `--events` writer and the mount table's watch, once for every root of the process
    /// (`run ROOT ROOT…`); nil: this root starts its own.
    package var sharedServices: SharedRootServices?
    /// Quotas, budgets, disk levels and forecasts (see ``PolicyMonitor``).
    package var policy = PolicyConfig()
    /// Reads the config again on SIGHUP; nil when there is no file to read (the rules came
    /// from the command line only). A thrown error's description is reported as it is.
    package var reloadPolicy: (@Sendable () throws -> PolicyConfig)?
    /// Told of the engine's life, its events and, when they ask, its tree (``EngineObserver``).
    package var observers: [any EngineObserver] = []
    /// Built outside the engine, taking part in it on its thread, in the order they hear
    /// events: the alert hooks, the cleaners (``EngineParticipant``).
    package var participants: [any EngineParticipant] = []
    /// Waits for SIGINT, SIGTERM and SIGHUP on a thread of its own. False when the process
    /// serves several roots: one thread waits for them and tells every engine
    /// (``LiveEngine/shutdown(signal:)``, ``LiveEngine/reload()``), since a signal is taken once.
    package var waitsForSignals = true

    package init(root: [UInt8], rootDisplay: String, socketPath: [UInt8]) {
        self.root = root
        self.rootDisplay = rootDisplay
        self.socketPath = socketPath
    }
}

/// Why `quotawatch run` stopped.
package enum EngineExit: Sendable, Equatable {
    case signal(Int32)
    /// ``LiveEngine/stop()`` asked it to.
    case stopped
    case failure(EngineFailure)
}
