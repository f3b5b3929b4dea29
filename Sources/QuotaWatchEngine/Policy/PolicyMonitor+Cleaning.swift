import QuotaWatchCore
import QuotaWatchPolicy

/// What cleaning (QuotaWatchCleaning, another module) reads and holds of the policy layer,
/// and nothing more: the disk level, the config, the quota rows a breach is planned from, and
/// the hold a cleanup run puts on a quota directory so that its breach is not reported again
/// while the run is still working on it.
extension PolicyMonitor {
    package var diskLevel: DiskLevel { level.level }

    package var policyConfig: PolicyConfig { config }

    package var quotaDirectoryCount: Int { book.directoryCount }

    /// Every quota directory's row at the level given, `now` on the engine's clock.
    package func quotaRows(level: DiskLevel, atNanoseconds now: UInt64) -> [QuotaBook<DirectoryID>.Row] {
        book.rows(level: level, at: Self.moment(now))
    }

    /// The files the idle-file leftover rules have reported as leftovers and that have not
    /// been written since (each judged idle from the latest of its mtime, ctime and the last
    /// change the engine saw, and not open for writing then): the only idle files a cleaner
    /// may take.
    package var reportedLeftovers: [(path: [UInt8], rule: String)] {
        leftovers.schedule.leftovers.map { ($0.path, $0.rule) }
    }

    package func isHeldForCleanup(_ directory: DirectoryID) -> Bool { book.isHeld(directory) }

    package mutating func holdForCleanup(_ directory: DirectoryID) { book.hold(directory) }

    /// The run that held `directory` settled: it is evaluated again at the end of the turn,
    /// so a breach the run left is reported.
    package mutating func releaseAfterCleanup(_ directory: DirectoryID) {
        book.release(directory)
        attachedSinceEvaluation.append(directory)
    }
}
