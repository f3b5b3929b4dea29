import QuotaWatchCore

/// The periodic fallback: a cleanup run when nothing else triggered one for a while, sooner
/// the fuller the disk.
public struct PeriodicCleanupSchedule: Sendable, Hashable {
    public var normal: Duration
    public var warning: Duration
    public var critical: Duration

    /// Daily, hourly, every ten minutes.
    public init(
        normal: Duration = .seconds(86_400), warning: Duration = .seconds(3_600), critical: Duration = .seconds(600)
    ) {
        self.normal = normal
        self.warning = warning
        self.critical = critical
    }

    public func period(at level: DiskLevel) -> Duration {
        switch level {
        case .normal: normal
        case .warning: warning
        case .critical: critical
        }
    }

    /// When the next periodic run is due, counting from the last run of any kind.
    public func nextRun(after lastRun: Moment, at level: DiskLevel) -> Moment { lastRun + period(at: level) }

    /// Whether a periodic run is due at `now`.
    public func isDue(now: Moment, lastRun: Moment, level: DiskLevel) -> Bool {
        now >= nextRun(after: lastRun, at: level)
    }
}
