import QuotaWatchCore
import QuotaWatchPolicy

/// How far one cleaner of a run has got, while it goes on: what `watch` shows as the cleaning
/// line and `clean` on a terminal as its bar. Sent at most every
/// ``CleanupRunner/Settings/progressInterval``, and only when something was answered since the
/// last; the run's `cleanup` event has the final figures.
package struct CleanupProgressReport: Sendable, Equatable {
    package var runID: String
    package var trigger: CleanupTrigger
    package var cleaner: String
    /// Removals so far that removed their name (a tree counts once), as the `cleanup` event counts.
    package var removed: Int
    /// Allocated bytes the file system got back so far.
    package var freedBytes: UInt64
    /// Removals answered so far, removed or not (skipped, failed).
    package var answered: Int
    /// Since the cleaner was called.
    package var seconds: Double
    package var dryRun: Bool

    package init(
        runID: String, trigger: CleanupTrigger, cleaner: String, removed: Int, freedBytes: UInt64, answered: Int,
        seconds: Double, dryRun: Bool
    ) {
        self.runID = runID
        self.trigger = trigger
        self.cleaner = cleaner
        self.removed = removed
        self.freedBytes = freedBytes
        self.answered = answered
        self.seconds = seconds
        self.dryRun = dryRun
    }

    /// The event line's shape; `root` is the daemon's ROOT, as in every event line.
    package func event(root: String?) -> CleanupProgressEvent {
        CleanupProgressEvent(
            root: root, run: runID, trigger: trigger.name, cleaner: cleaner, removed: removed, freed: freedBytes,
            answered: answered, seconds: seconds, dryRun: dryRun)
    }
}
