import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Writes the metrics for node_exporter's textfile collector, on a thread of its own: the
/// newest snapshot offered, at most once per `minimumInterval`, each time to `NAME.prom.tmp`
/// in the same directory, synced, then renamed over `NAME.prom`, so the collector reads the
/// old file or the new one, never half of one.
///
/// A write that fails is reported in the log (once per distinct error) and tried again with
/// the next snapshot; it never reaches the engine.
package final class MetricsTextfile: Sendable {
    package let path: [UInt8]
    private let minimumInterval: Duration
    private struct Handover {
        var pending: [MetricsSnapshot]?
        var stopping = false
    }

    private let handover = BlockingState(Handover())
    private let thread = Mutex<JoinableThread?>(nil)

    /// The permission bits of the file: the collector usually runs as another user.
    static let mode: mode_t = 0o644

    package init(path: [UInt8], minimumInterval: Duration) {
        self.path = path
        self.minimumInterval = minimumInterval
    }

    /// Writes `snapshot` now, on the caller's thread: at start, so a path that cannot be
    /// written is an error before the daemon runs.
    package func writeNow(_ snapshot: MetricsSnapshot) throws(Errno) { try writeNow([snapshot]) }

    /// Writes the snapshots of every root the daemon serves, as one file.
    package func writeNow(_ snapshots: [MetricsSnapshot]) throws(Errno) {
        try DurableFile.replace(path, with: Array(PrometheusText.render(snapshots).utf8), mode: Self.mode)
    }

    /// Starts the writer thread.
    package func start() {
        thread.withLock { $0 = JoinableThread(name: "qw-metrics-file") { [self] in run() } }
    }

    /// Hands over the newest snapshot; returns at once (called on the engine thread).
    package func offer(_ snapshot: MetricsSnapshot) { offer([snapshot]) }

    /// Hands over the newest snapshots of every root the daemon serves.
    package func offer(_ snapshots: [MetricsSnapshot]) {
        handover.withLockWakingWaiters { $0.pending = snapshots }
    }

    /// Writes what is still pending, then stops the thread and waits for it.
    package func stop() {
        handover.withLockWakingWaiters { $0.stopping = true }
        thread.withLock { $0 }?.join()
    }

    private func run() {
        var lastWrite: ContinuousClock.Instant?
        var lastError: String?
        while let snapshot = next(after: lastWrite) {
            lastWrite = .now
            do {
                try writeNow(snapshot)
                lastError = nil
            } catch {
                let message = "\(error)"
                guard message != lastError else { continue }
                lastError = message
                // Through the log: `watch` shows it on its screen instead of writing across it.
                Log.warning("cannot write the metrics file '\(HumanText.name(path))': \(message)")
            }
        }
    }

    /// The next snapshot to write, no sooner than `minimumInterval` after the last write
    /// (unless stopping); nil once stopping with nothing pending.
    private func next(after lastWrite: ContinuousClock.Instant?) -> [MetricsSnapshot]? {
        handover.waitUntil { $0.pending != nil || $0.stopping }
        if let lastWrite {
            // Until the interval has passed, or at once when asked to stop.
            handover.waitUntil(deadline: lastWrite + minimumInterval) { $0.stopping }
        }
        return handover.withLock { handover in
            defer { handover.pending = nil }
            return handover.pending
        }
    }
}
