/// A point in time for policy decisions: a duration since an origin the engine chooses (its
/// monotonic clock at start), so tests can drive every timer with a fake clock.
public struct Moment: Sendable, Hashable, Comparable {
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    public static func seconds(_ seconds: Double) -> Moment { Moment(sinceOrigin: .seconds(seconds)) }

    public static func < (lhs: Moment, rhs: Moment) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
    public static func + (lhs: Moment, rhs: Duration) -> Moment { Moment(sinceOrigin: lhs.sinceOrigin + rhs) }
    public static func - (lhs: Moment, rhs: Duration) -> Moment { Moment(sinceOrigin: lhs.sinceOrigin - rhs) }
    public static func - (lhs: Moment, rhs: Moment) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }
}
