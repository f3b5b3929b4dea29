/// A wall-clock time for event lines: milliseconds since the Unix epoch, written as
/// ISO 8601 in UTC with milliseconds ("2026-11-30T23:04:05.123Z").
package struct WallTime: Sendable, Hashable, Comparable {
    package var millisecondsSinceEpoch: Int64

    package init(millisecondsSinceEpoch: Int64) { self.millisecondsSinceEpoch = millisecondsSinceEpoch }

    package static func < (lhs: WallTime, rhs: WallTime) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    package var iso8601: String {
        let (days, dayMilliseconds) = Self.floorDivide(millisecondsSinceEpoch, 86_400_000)
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        let hours = dayMilliseconds / 3_600_000
        let minutes = dayMilliseconds / 60_000 % 60
        let seconds = dayMilliseconds / 1000 % 60
        let milliseconds = dayMilliseconds % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):"
            + "\(pad(seconds, 2)).\(pad(milliseconds, 3))Z"
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        // Written so that no step overflows: event times read back from SQLite or the audit
        // log may be any Int64, including Int64.min.
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
