import QuotaWatchCore
import QuotaWatchPolicy

/// How much history is kept: rows older than `keep` go, and when the database holds more than
/// `maximumBytes`, the oldest rows go until it would hold about 90 % of it, so a full database
/// is not trimmed again at every write. Pure: the writer measures, this decides.
package struct HistoryRetention: Sendable, Equatable {
    /// The oldest row kept, as an age.
    package var keep: Duration
    /// The pages in use (free pages not counted) the database may hold.
    package var maximumBytes: UInt64

    package init(
        keep: Duration = HistoryConfig.defaultKeep, maximumBytes: UInt64 = HistoryConfig.defaultMaximumBytes
    ) {
        self.keep = keep
        self.maximumBytes = maximumBytes
    }

    /// Rows recorded before this time are dropped.
    package func ageCutoff(now: WallTime) -> WallTime {
        WallTime(millisecondsSinceEpoch: Saturating.difference(now.millisecondsSinceEpoch, keep.clampedMilliseconds))
    }

    /// The share (0 to 1) of each table's oldest rows to drop when `usedBytes` are in use:
    /// 0 within the limit, else enough that what is left fills 90 % of it, assuming rows are
    /// of similar size.
    package func shareToDrop(usedBytes: UInt64) -> Double {
        guard usedBytes > maximumBytes, usedBytes > 0 else { return 0 }
        let target = Double(maximumBytes) * 0.9
        return min(1, max(0, (Double(usedBytes) - target) / Double(usedBytes)))
    }

    /// How many of `rowCount` rows `share` means, at least one when the share is not 0.
    package static func rowsToDrop(share: Double, rowCount: Int) -> Int {
        guard share > 0, rowCount > 0 else { return 0 }
        return min(rowCount, max(1, Int((share * Double(rowCount) - 1e-9).rounded(.up))))
    }
}
