import Foundation

/// The system's wall clock, for comparing with file times (mtimes are wall-clock nanoseconds).
enum WallClock {
    @Sendable static func nanosecondsSinceEpoch() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }
}
