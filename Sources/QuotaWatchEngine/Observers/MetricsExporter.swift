import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// Follows the engine for `/metrics` and the textfile: on its turn, about once a second and
/// soon after an event that changes a count, it makes a ``MetricsSnapshot`` in
/// O(quota directories + top-level directories) and publishes it by swapping one value under a
/// lock. A scrape copies the published value (arrays shared, not copied) and renders it on its
/// own thread, so scrapes never wait for the engine and the engine never waits for a scrape.
package final class MetricsExporter: EngineObserver, Sendable {
    /// The most top-level directories exported; the largest are kept. A label per directory
    /// must stay bounded even for a root with a million entries.
    package static let topLevelLimit = 1000

    private let version: String
    private let host: String
    private let interval: UInt64
    /// After an event, the soonest turn: a burst of events publishes once, not once per event.
    private let eventGap: UInt64
    private let published: Mutex<(generation: UInt64, snapshot: MetricsSnapshot)>
    private let onPublish: (@Sendable (MetricsSnapshot) -> Void)?

    /// Touched on the engine thread only (the observer's calls): the lock is never contended.
    private struct EngineSide {
        var counters = MetricsSnapshot.Counters()
        var due: UInt64?
        var lastTurn: UInt64 = 0
        var isReady = false
    }

    private let engineSide = Mutex(EngineSide())

    /// - Parameters:
    ///   - interval: how often the snapshot is made afresh when nothing happens.
    ///   - eventGap: after an event that changes a count, the next snapshot comes this long
    ///     after the last one (at once if that is past).
    ///   - onPublish: called on the engine thread with each new snapshot; must return at once.
    package init(
        version: String, root: String, host: String = HostName.current(), interval: Duration = .seconds(1),
        eventGap: Duration = .milliseconds(100), onPublish: (@Sendable (MetricsSnapshot) -> Void)? = nil
    ) {
        self.version = version
        self.host = host
        self.interval = interval.nanoseconds
        self.eventGap = eventGap.nanoseconds
        self.onPublish = onPublish
        var first = MetricsSnapshot(version: version, root: root)
        first.host = host
        published = Mutex((0, first))
    }

    /// The last snapshot published, and how many have been: what a scrape renders.
    package var snapshot: (generation: UInt64, snapshot: MetricsSnapshot) { published.withLock { $0 } }

    // MARK: EngineObserver (engine thread)

    package var nextTurn: UInt64? { engineSide.withLock { $0.due } }

    package func engine(_ change: EngineLifecycle, _ view: EngineView) {
        guard change == .ready else { return }
        engineSide.withLock { $0.isReady = true }
        publish(view)
    }

    package func engineEmitted(_ event: ObservedEvent) {
        let eventGap = self.eventGap
        engineSide.withLock { side in
            guard Self.count(event, into: &side.counters), side.isReady else { return }
            let soonest = side.lastTurn &+ eventGap
            side.due = min(side.due ?? soonest, soonest)
        }
    }

    package func engineTurn(_ view: EngineView) { publish(view) }

    // MARK: Making the snapshot

    /// Counts `event`; true when a metric changed with it.
    private static func count(_ event: ObservedEvent, into counters: inout MetricsSnapshot.Counters) -> Bool {
        switch event {
        case .engine(.cleanup(let summary)):
            counters.cleanupRuns += 1
            if !summary.dryRun {
                counters.removedFiles += UInt64(summary.removedCount)
                counters.removedBytes = Saturating.sum(counters.removedBytes, summary.freedBytes)
            }
        case .engine(.overflow), .engine(.resynced), .engine(.degraded), .engine(.configReloaded):
            break
        case .engine: return false
        case .policy(let event):
            switch event.detail {
            case .quota(let state, _, _, _, _, _, _, _):
                if state == .breach { counters.quotaBreaches += 1 }
                if state == .warning { counters.quotaWarnings += 1 }
            case .level: counters.levelChanges += 1
            case .leftover(_, let allocated, _, _):
                counters.leftovers += 1
                counters.leftoverBytes = Saturating.sum(counters.leftoverBytes, allocated)
            case .leftoverGone: return false
            case .forecast: counters.forecasts += 1
            case .hookFailed: counters.hookFailures += 1
            }
        }
        return true
    }

    private func publish(_ view: EngineView) {
        let snapshot = makeSnapshot(view)
        published.withLock { $0 = ($0.generation + 1, snapshot) }
        let interval = self.interval
        engineSide.withLock { side in
            side.lastTurn = view.now
            side.due = view.now &+ interval
        }
        onPublish?(snapshot)
    }

    private func makeSnapshot(_ view: EngineView) -> MetricsSnapshot {
        let tree = view.tree
        var snapshot = MetricsSnapshot(version: version, root: view.rootDisplay)
        let (ready, counters) = engineSide.withLock { ($0.isReady, $0.counters) }
        snapshot.host = host
        snapshot.ready = ready
        snapshot.rootTally = tree.tally(of: tree.root)
        snapshot.watches = view.counters.watches
        snapshot.degradedSubtrees = view.counters.degraded.count
        snapshot.resyncing = view.isResyncing
        snapshot.counters = counters
        snapshot.counters.inotifyEvents = view.counters.events
        snapshot.counters.overflows = view.counters.overflows
        snapshot.counters.relistedDirectories = view.counters.rescannedDirectories
        if let verification = view.counters.verification {
            snapshot.counters.verifyCorrections = verification.corrections
            snapshot.counters.verifyChecked = verification.checked
            snapshot.counters.verifyPasses = verification.passes
        }

        var usage: [[UInt8]: Usage] = [:]
        // A directory parked during a move has a name starting with NUL: not a real entry.
        var topLevel = tree.subdirectories(of: tree.root).filter { tree.name(of: $0).first != 0 }
        if topLevel.count > Self.topLevelLimit {
            topLevel.sort { tree.tally(of: $0).allocated > tree.tally(of: $1).allocated }
            snapshot.omittedDirectories = topLevel.count - Self.topLevelLimit
            topLevel.removeLast(snapshot.omittedDirectories)
        }
        for directory in topLevel { usage[Array(tree.name(of: directory))] = tree.tally(of: directory).usage }

        if let quotas = view.monitor?.snapshot(root: view.rootDisplay, tree: tree, now: view.now) {
            snapshot.level = MetricsSnapshot.StateSet(
                current: quotas.level.rawValue, all: DiskLevel.allCases.map(\.rawValue))
            snapshot.freeBytes = quotas.reading?.free
            snapshot.totalBytes = quotas.reading?.total
            let rows = quotas.rows.sorted {
                $0.path == $1.path ? $0.rule < $1.rule : $0.path.lexicographicallyPrecedes($1.path)
            }
            for row in rows {
                snapshot.quotas.append(QuotaSnapshot.statusRow(row))
                if usage[row.path] == nil,
                    let directory = tree.directory(atComponents: row.path.split(separator: UInt8(ascii: "/")))
                {
                    usage[row.path] = tree.tally(of: directory).usage
                }
            }
        }
        snapshot.directories = usage.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
            MetricsSnapshot.Directory(path: EscapedName.string($0.key), usage: $0.value)
        }
        return snapshot
    }
}
