/// How sizes are shown to people.
package enum ByteFormat: Sendable, Equatable {
    /// 1 KB = 1000 B, one decimal place, ties rounded half up: what iOS's storage screen shows.
    case decimal
    /// 1 KiB = 1024 B, one decimal place, ties rounded half up.
    case binary
    /// The exact number of bytes.
    case bytes

    /// Renders `bytes` in this format, with integer arithmetic only: Foundation and printf
    /// round ties to even, so 1 250 000 B would show as "1.2 MB" instead of "1.3 MB".
    package func string(_ bytes: UInt64) -> String {
        switch self {
        case .bytes: return "\(bytes) B"
        case .decimal: return Self.scaled(bytes, base: 1000, units: ["B", "KB", "MB", "GB", "TB", "PB", "EB"])
        case .binary: return Self.scaled(bytes, base: 1024, units: ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"])
        }
    }

    private static func scaled(_ bytes: UInt64, base: UInt64, units: [String]) -> String {
        if bytes < base { return "\(bytes) \(units[0])" }
        // Pick the unit in which the value, rounded to tenths, stays below `base`
        // (999 950 B is "1.0 MB", not "1000.0 KB").
        var unit = 1
        var divisor = base
        while unit < units.count - 1 {
            let tenths = roundedTenths(bytes, divisor: divisor)
            if tenths < base * 10 { break }
            unit += 1
            divisor = divisor.multipliedReportingOverflow(by: base).partialValue
        }
        let tenths = roundedTenths(bytes, divisor: divisor)
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// `bytes / divisor` in tenths, ties rounded up, without overflow.
    private static func roundedTenths(_ bytes: UInt64, divisor: UInt64) -> UInt64 {
        let (whole, remainder) = bytes.quotientAndRemainder(dividingBy: divisor)
        // remainder * 10 may overflow for the largest divisors: work in full width.
        let scaled = remainder.multipliedFullWidth(by: 10)
        let (tenth, tenthRemainder) = divisor.dividingFullWidth((high: scaled.high, low: scaled.low))
        let roundUp: UInt64 = tenthRemainder >= divisor - tenthRemainder ? 1 : 0
        return whole * 10 + tenth + roundUp
    }
}
