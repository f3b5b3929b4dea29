import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

/// The system's wall clock, for comparing with file times (mtimes are wall-clock nanoseconds).
package enum WallClock {
    /// Clamped to the range of `Int64` nanoseconds, so a clock set past 2262 does not trap.
    @Sendable package static func nanosecondsSinceEpoch() -> Int64 {
        Saturating.int64(Date().timeIntervalSince1970 * 1e9)
    }
}

extension WallTime {
    /// The system's wall clock.
    @Sendable package static func now() -> WallTime {
        WallTime(millisecondsSinceEpoch: Saturating.int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
