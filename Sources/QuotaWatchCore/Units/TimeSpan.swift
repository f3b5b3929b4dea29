/// A duration given by a person: "500ms", "90s", "15m", "2h", "7d".
package struct TimeSpan: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var duration: Duration

    package init(_ duration: Duration) { self.duration = duration }

    /// The shortest exact spelling in the units the parser accepts ("90s", "2h", "1500ms").
    package var description: String { Self.format(duration) }

    /// The longest duration the grammar takes: 100 years of 365 days. Every later sum
    /// (a deadline, a cutoff in nanoseconds since 1970) stays far inside Int64.
    package static let maximum: Duration = .milliseconds(Int64(36_500) * 86_400_000)
    /// Every duration the grammar can write: 0 to 36500d, to the millisecond.
    package static let anyDuration: ClosedRange<Duration> = .zero...maximum

    /// Durations from `minimum` up to the longest the grammar takes.
    package static func atLeast(_ minimum: Duration) -> ClosedRange<Duration> { minimum...maximum }

    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var input: String
        package var reason: String
        /// The durations the value was read for.
        package var allowed: ClosedRange<Duration> = TimeSpan.anyDuration

        package init(input: String, reason: String, allowed: ClosedRange<Duration> = TimeSpan.anyDuration) {
            self.input = input
            self.reason = reason
            self.allowed = allowed
        }

        package var description: String {
            "invalid duration '\(input)': \(reason); write a whole or decimal number with a unit, "
                + "such as 500ms, 90s, 15m, 2h or 7d (ms, s, m, h, d), from \(TimeSpan.format(allowed.lowerBound)) "
                + "to \(TimeSpan.format(allowed.upperBound))"
        }
    }

    private static let unitMilliseconds: [String: UInt64] = [
        "ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
    ]

    /// Parses a duration within `allowed`. The grammar (docs/configuration.md, "Values"): a number as
    /// ``DecimalText`` reads it, optionally spaces, then a unit in any case; the unit is
    /// required (a bare "90" could mean seconds or minutes). Fractions are kept to the
    /// millisecond, rounded half up ("1.5h" is 90 minutes); a duration that is not 0 but
    /// rounds to 0ms ("0.0001ms") is refused rather than read as 0.
    package init(parsing text: String, in allowed: ClosedRange<Duration> = TimeSpan.anyDuration) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason, allowed: allowed) }
        let number: DecimalText
        do {
            number = try DecimalText(text, negative: "durations")
        } catch {
            throw fail(error.reason)
        }
        guard !number.suffix.isEmpty else { throw fail("it has no unit") }
        guard let perUnit = Self.unitMilliseconds[number.suffix.lowercased()] else {
            throw fail("unknown unit '\(number.suffix)'")
        }
        let longest = UInt64(Self.maximum.components.seconds) * 1000
        guard let milliseconds = number.scaled(by: perUnit), milliseconds <= longest else {
            throw fail("it is longer than \(Self.format(Self.maximum)) (100 years)")
        }
        if milliseconds == 0, !number.isZero { throw fail("it is shorter than 1ms, the smallest step") }
        let duration = Duration.milliseconds(Int64(milliseconds))
        guard allowed.contains(duration) else {
            throw fail(
                duration < allowed.lowerBound
                    ? "it is shorter than \(Self.format(allowed.lowerBound))"
                    : "it is longer than \(Self.format(allowed.upperBound))")
        }
        self.duration = duration
    }

    /// Formats `duration` in the largest unit that states it exactly, down to milliseconds.
    package static func format(_ duration: Duration) -> String {
        let milliseconds = duration.clampedMilliseconds
        if milliseconds == 0 { return "0s" }
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number, for rates and ratios.
    package var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
