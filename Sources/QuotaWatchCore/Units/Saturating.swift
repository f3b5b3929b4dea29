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
