import QuotaWatchEngine

/// Whether the cleaners may delete, and where what must outlive a run is kept.
package struct CleanupOptions: Sendable {
    /// `run --clean`: the cleaners delete. Without it every run reports what it would remove.
    package var clean = false
    /// `run --dry-run`: report only, even with `--clean`.
    package var dryRun = false
    /// The audit log and the last app version seen (``StateDirectory``); nil when none can be
    /// named.
    package var stateDirectory: [UInt8]?

    package init() {}

    /// Whether anything is removed.
    package var deletes: Bool { clean && !dryRun }
}
