/// Arithmetic on values that come from outside the process — the kernel's `stat`, `statvfs`
/// and clocks, `/proc`, the control socket, rows read back from SQLite or the audit log —
/// defined for every input: a result that does not fit is clamped to the nearest value that
/// does, never a trap. Swift's `*`, `+` and `Int64(_:)` trap on overflow, and a trap in the
/// daemon is a denial of service by anyone who can set a file's time or size.
package enum Saturating {
    /// `lhs × rhs`, or `UInt64.max` when the product does not fit.
    package static func product(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        return overflow ? .max : value
    }

    /// `lhs + rhs`, or `UInt64.max` when the sum does not fit.
    package static func sum(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let (value, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? .max : value
    }

    /// `lhs × rhs`, clamped to `Int64.min ... Int64.max`.
    package static func product(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        guard overflow else { return value }
        return (lhs < 0) == (rhs < 0) ? .max : .min
    }

    /// `lhs + rhs`, clamped to `Int64.min ... Int64.max`.
    package static func sum(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.addingReportingOverflow(rhs)
        guard overflow else { return value }
        return rhs < 0 ? .min : .max
    }

    /// `lhs − rhs`, clamped to `Int64.min ... Int64.max`: the time between two instants read
    /// from files, one of which may be at the end of the range.
    package static func difference(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (value, overflow) = lhs.subtractingReportingOverflow(rhs)
        guard overflow else { return value }
        return rhs < 0 ? .max : .min
    }

    /// A floating-point value as `Int64`, clamped; NaN is 0. `Int64(_: Double)` traps outside
    /// the range (a wall clock set past 2262, a stored REAL of 1e300).
    package static func int64(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        if value >= 9_223_372_036_854_775_807.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    /// A floating-point value as `UInt64`, clamped; NaN and negatives are 0.
    package static func uint64(_ value: Double) -> UInt64 {
        guard !value.isNaN, value > 0 else { return 0 }
        if value >= 18_446_744_073_709_551_615.0 { return .max }
        return UInt64(value)
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64.min ... Int64.max` (about ±292 years).
    package var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000))
    }

    /// Whole milliseconds, clamped to `Int64.min ... Int64.max`.
    package var clampedMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return Int64(clamping: Int128(seconds) * 1000 + Int128(attoseconds / 1_000_000_000_000_000))
    }
}
