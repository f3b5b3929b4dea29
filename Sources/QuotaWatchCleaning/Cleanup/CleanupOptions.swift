import QuotaWatchEngine

/// Whether the cleaners may delete, and where what must outlive a run is kept.
public struct CleanupOptions: Sendable {
    /// `run --clean`: the cleaners delete. Without it every run reports what it would remove.
    public var clean = false
    /// `run --dry-run`: report only, even with `--clean`.
    public var dryRun = false
    /// The audit log and the last app version seen (``StateDirectory``); nil when none can be
    /// named.
    public var stateDirectory: [UInt8]?

    public init() {}

    /// Whether anything is removed.
    public var deletes: Bool { clean && !dryRun }
}
