import QuotaWatchCore

/// The periodic fallback: a cleanup run when nothing else triggered one for a while, sooner
/// the fuller the disk.
package struct PeriodicCleanupSchedule: Sendable, Hashable {
    package var normal: Duration
    package var warning: Duration
    package var critical: Duration

    /// Daily, hourly, every ten minutes.
    package init(
        normal: Duration = .seconds(86_400), warning: Duration = .seconds(3_600), critical: Duration = .seconds(600)
    ) {
        self.normal = normal
        self.warning = warning
        self.critical = critical
    }

    package func period(at level: DiskLevel) -> Duration {
        switch level {
        case .normal: normal
        case .warning: warning
        case .critical: critical
        }
    }

    /// When the next periodic run is due, counting from the last run of any kind.
    package func nextRun(after lastRun: Moment, at level: DiskLevel) -> Moment { lastRun + period(at: level) }

    /// Whether a periodic run is due at `now`.
    package func isDue(now: Moment, lastRun: Moment, level: DiskLevel) -> Bool {
        now >= nextRun(after: lastRun, at: level)
    }
}
