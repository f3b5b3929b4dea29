/// The one monotonic instant of the policy layer and everything above it: a duration since
/// an origin (the process's first reading of the monotonic clock, or the engine's clock at
/// start), so tests can drive every timer with a fake clock. Durations are Swift's
/// `Duration`; `ContinuousClock.Instant` is read only where the real clock is (``now``, and
/// the system layer's waits with a deadline).
package struct Moment: Sendable, Hashable, Comparable {
    package var sinceOrigin: Duration

    package init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    package static func seconds(_ seconds: Double) -> Moment { Moment(sinceOrigin: .seconds(seconds)) }

    /// Nanoseconds since the origin, as the engine's schedule counts them (clamped to what
    /// `Duration` holds as `Int64` nanoseconds, about 292 years).
    package init(nanosecondsSinceOrigin nanoseconds: UInt64) {
        sinceOrigin = .nanoseconds(Int64(clamping: nanoseconds))
    }

    /// The monotonic clock now, measured from the process's first reading of it: one origin
    /// for every reader in the process, so moments from different threads compare.
    package static var now: Moment { Moment(sinceOrigin: ContinuousClock.now - processOrigin) }

    private static let processOrigin = ContinuousClock.now

    package static func < (lhs: Moment, rhs: Moment) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
    package static func + (lhs: Moment, rhs: Duration) -> Moment { Moment(sinceOrigin: lhs.sinceOrigin + rhs) }
    package static func - (lhs: Moment, rhs: Duration) -> Moment { Moment(sinceOrigin: lhs.sinceOrigin - rhs) }
    package static func - (lhs: Moment, rhs: Moment) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }
    package static func += (lhs: inout Moment, rhs: Duration) { lhs.sinceOrigin += rhs }
}
