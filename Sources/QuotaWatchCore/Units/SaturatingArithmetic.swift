/// Arithmetic on values that come from outside the process — the kernel's `stat`, `statvfs`
/// and clocks, `/proc`, the control socket, rows read back from SQLite or the audit log —
/// defined for every input: a result that does not fit is clamped to the nearest value that
/// does, never a trap. Swift's `*`, `+` and `Int64(_:)` trap on overflow, and a trap in the
/// daemon is a denial of service by anyone who can set a file's time or size.
public enum Saturating {
    /// `lhs × rhs`, or `UInt64.max` when the product does not fit.
    public static func product(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        return overflow ? .max : value
    }

    /// `lhs + rhs`, or `UInt64.max` when the sum does not fit.
    public static func sum(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let (value, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? .max : value
    }

    /// `lhs × rhs`, clamped to `Int64.min ... Int64.max`.
    public static func product(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        guard overflow else { return value }
        return (lhs < 0) == (rhs < 0) ? .max : .min
    }

    /// `lhs + rhs`, clamped to `Int64.min ... Int64.max`.
    public static func sum(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.addingReportingOverflow(rhs)
        guard overflow else { return value }
        return rhs < 0 ? .min : .max
    }

    /// `lhs − rhs`, clamped to `Int64.min ... Int64.max`: the time between two instants read
    /// from files, one of which may be at the end of the range.
    public static func difference(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.subtractingReportingOverflow(rhs)
        guard overflow else { return value }
        return rhs < 0 ? .max : .min
    }

    /// A floating-point value as `Int64`, clamped; NaN is 0. `Int64(_: Double)` traps outside
    /// the range (a wall clock set past 2262, a stored REAL of 1e300).
    public static func int64(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        if value >= 9_223_372_036_854_775_807.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    /// A floating-point value as `UInt64`, clamped; NaN and negatives are 0.
    public static func uint64(_ value: Double) -> UInt64 {
        guard !value.isNaN, value > 0 else { return 0 }
        if value >= 18_446_744_073_709_551_615.0 { return .max }
        return UInt64(value)
    }
}

/// File times as the kernel gives them (`struct timespec`: seconds since the epoch, and
/// nanoseconds) turned into the one `Int64` of nanoseconds the policy layer compares.
public enum FileTime {
    /// The earliest time an `Int64` of nanoseconds holds: 1677-09-21T00:12:43.145224192Z.
    public static let earliest = Int64.min
    /// The latest: 2262-04-11T23:47:16.854775807Z.
    public static let latest = Int64.max

    /// Nanoseconds since the epoch, clamped to ``earliest`` ... ``latest``. ext4, XFS, btrfs
    /// and tmpfs store seconds far beyond that range (`touch -d @9223372037`); such a file
    /// reads as the end of the range it lies past: very old, or far in the future, which is
    /// what every decision made on it needs. A `tv_nsec` outside 0 ..< 10⁹ (only a broken or
    /// hostile file system reports one) is clamped into it.
    public static func nanosecondsSinceEpoch(seconds: Int64, nanoseconds: Int64) -> Int64 {
        let fraction = min(max(nanoseconds, 0), 999_999_999)
        // Exact in 128 bits, then clamped: a time just past an end stays past it, fraction and all.
        return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(fraction))
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64.min ... Int64.max` (about ±292 years).
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000))
    }

    /// Whole milliseconds, clamped to `Int64.min ... Int64.max`.
    public var clampedMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return Int64(clamping: Int128(seconds) * 1000 + Int128(attoseconds / 1_000_000_000_000_000))
    }
}
