import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// Records the engine's history through the ``EngineObserver`` seam: every event it emits, a
/// sample of ROOT and every quota directory's sizes every ``HistorySettings/sampleEvery`` (and
/// of a directory at each of its breaches), written to SQLite by ``HistoryWriter`` on a thread
/// of its own.
///
/// On the engine thread it only copies: an event is queued as the value it is (its JSON line
/// is made on the writer's thread), a sample is two numbers read from the tree. A database
/// that is locked, damaged or on a full disk never reaches the engine (see ``HistoryWriter``).
package final class HistoryRecorder: EngineObserver {
    private struct EngineSide {
        /// The engine clock's reading at which the next periodic sample is due.
        var nextSample: UInt64?
        /// Directories whose breach was emitted since the last turn: sampled in the next one.
        var breached: [String] = []
    }

    private struct Writer {
        var thread: JoinableThread?
        var stopped = false
    }

    private let settings: HistorySettings
    private let queue: HistoryQueue
    private let report: @Sendable (String) -> Void
    private let engineSide = Mutex(EngineSide())
    private let writer = Mutex(Writer())

    /// `report` receives the recorder's warnings, one line each. Nothing is opened until
    /// ``start()`` (the engine's `ready`), so a daemon that fails to start leaves no thread.
    package init(settings: HistorySettings, report: @escaping @Sendable (String) -> Void = HistoryReport.log) {
        self.settings = settings
        self.report = report
        queue = HistoryQueue(capacity: settings.capacity)
    }

    /// Starts the writer thread, which opens or creates the database and imports the audit
    /// log at once. Idempotent; does nothing after ``stop()``.
    package func start() {
        writer.withLock { writer in
            guard writer.thread == nil, !writer.stopped else { return }
            let (settings, queue, report) = (self.settings, self.queue, self.report)
            writer.thread = JoinableThread(name: "qw-history") {
                HistoryWriter(settings: settings, queue: queue, report: report).run()
            }
        }
    }

    /// Writes what is queued and stops the writer; called when the engine stops. Idempotent.
    package func stop() {
        queue.close()
        let running = writer.withLock { writer -> JoinableThread? in
            writer.stopped = true
            defer { writer.thread = nil }
            return writer.thread
        }
        running?.join()
    }

    deinit { stop() }

    // MARK: EngineObserver

    package var nextTurn: UInt64? {
        engineSide.withLock { $0.breached.isEmpty ? $0.nextSample : 0 }
    }

    package func engine(_ change: EngineLifecycle, _ view: EngineView) {
        switch change {
        case .ready:
            start()
            takeSamples(paths: periodicPaths(view), reason: "ready", view)
            engineSide.withLock { $0.nextSample = view.now + settings.sampleEvery.nanoseconds }
        case .stopping:
            stop()
        case .reloading, .reloaded:
            break
        }
    }

    package func engineEmitted(_ event: ObservedEvent) {
        switch event {
        case .policy(let policy):
            queue.push(.event(event, policy.time))
            if case .quota(.breach, let path, _, _, _, _, _, _) = policy.detail {
                let shown = EscapedName.string(path)
                engineSide.withLock { $0.breached.append(shown) }
            }
        case .engine(.cleanupProgress):
            // Twice a second during a long run: the run's `cleanup` event is its record.
            break
        case .engine:
            queue.push(.event(event, WallTime.now()))
        }
    }

    package func engineTurn(_ view: EngineView) {
        let (breached, periodic) = engineSide.withLock { side -> ([String], Bool) in
            let breached = side.breached
            side.breached.removeAll()
            guard let due = side.nextSample, due <= view.now else { return (breached, false) }
            side.nextSample = view.now + settings.sampleEvery.nanoseconds
            return (breached, true)
        }
        if !breached.isEmpty { takeSamples(paths: Array(Set(breached)).sorted(), reason: "breach", view) }
        if periodic { takeSamples(paths: periodicPaths(view), reason: "periodic", view) }
    }

    // MARK: Samples

    /// ROOT and every quota directory, each once.
    private func periodicPaths(_ view: EngineView) -> [String] {
        var seen: Set<String> = ["."]
        var paths = ["."]
        for row in view.quotas()?.quotas ?? [] where seen.insert(row.path).inserted { paths.append(row.path) }
        return paths
    }

    private func takeSamples(paths: [String], reason: String, _ view: EngineView) {
        let time = WallTime.now()
        for path in paths {
            guard let usage = Self.usage(of: path, in: view.tree) else { continue }
            queue.push(
                .sample(
                    HistorySample(
                        time: time, path: path, allocated: usage.allocated, apparent: usage.apparent, reason: reason)))
        }
    }

    /// The directory's sizes; nil when the path is no longer a directory of the tree.
    static func usage(of path: String, in tree: TallyTree) -> Usage? {
        guard let bytes = EscapedName.bytes(path) else { return nil }
        let components = bytes == [UInt8(ascii: ".")] ? [] : PathComponents.split(bytes)
        guard let directory = tree.directory(atComponents: components) else { return nil }
        return tree.tally(of: directory).usage
    }
}
