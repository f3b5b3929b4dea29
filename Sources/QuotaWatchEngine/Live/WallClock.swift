import Foundation
import QuotaWatchCore

/// The system's wall clock, for comparing with file times (mtimes are wall-clock nanoseconds).
enum WallClock {
    /// Clamped to the range of `Int64` nanoseconds, so a clock set past 2262 does not trap.
    @Sendable static func nanosecondsSinceEpoch() -> Int64 { Saturating.int64(Date().timeIntervalSince1970 * 1e9) }
}
