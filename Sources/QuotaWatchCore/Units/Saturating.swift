extension Int64 {
    /// `value` rounded to the nearest whole number, held to Int64's range (NaN is 0):
    /// `Int64(Double)` traps past the ends, and values derived from a limit near 2^64 (a
    /// forecast, a target) get there.
    public init(saturating value: Double) {
        let rounded = value.rounded()
        if rounded.isNaN {
            self = 0
        } else if rounded >= 0x1p63 {
            self = .max
        } else if rounded <= -0x1p63 {
            self = .min
        } else {
            self = Int64(rounded)
        }
    }
}

extension UInt64 {
    /// `value` rounded down, held to UInt64's range (NaN and negatives are 0).
    public init(saturatingDown value: Double) {
        let rounded = value.rounded(.down)
        if !(rounded > 0) {
            self = 0
        } else if rounded >= 0x1p64 {
            self = .max
        } else {
            self = UInt64(rounded)
        }
    }
}

extension Duration {
    /// Whole nanoseconds, held to Int64's range (about 292 years either way).
    public var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || sumOverflow { return seconds < 0 ? .min : .max }
        return sum
    }
}

extension Int64 {
    /// `self − other`, held to Int64's range: the age of an mtime far in the past or the
    /// future (nanoseconds since 1970, as the kernel reported it) must not trap.
    public func saturatingMinus(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        if overflow { return other < 0 ? .max : .min }
        return difference
    }
}
