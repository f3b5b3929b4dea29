/// The unitless values of the config and the command line, each read by one parser used
/// everywhere: ratios ("0.8", "80%"), shares ("10%"), plain numbers such as weights ("2.5")
/// and whole numbers ("64"). The number itself is ``DecimalText``'s grammar.
package struct NumberParseError: Error, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// A number from the range, or a percentage of it.
        case ratio
        /// A percentage only.
        case share
        case number
        case wholeNumber
    }

    package var kind: Kind
    package var input: String
    package var reason: String
    package var allowed: ClosedRange<Double>

    package var description: String {
        let low = NumberText.plain(allowed.lowerBound)
        let high = NumberText.plain(allowed.upperBound)
        let lowShare = NumberText.percent(allowed.lowerBound)
        let highShare = NumberText.percent(allowed.upperBound)
        switch kind {
        case .ratio:
            return "invalid ratio '\(input)': \(reason); write a number from \(low) to \(high), such as 0.8, "
                + "or a percentage from \(lowShare) to \(highShare), such as 80%"
        case .share:
            return "invalid share '\(input)': \(reason); write a percentage from \(lowShare) to \(highShare), "
                + "such as 10% or 2.5%"
        case .number:
            return "invalid number '\(input)': \(reason); write a whole or decimal number from \(low) to \(high), "
                + "such as 1 or 2.5"
        case .wholeNumber:
            return "invalid number '\(input)': \(reason); write a whole number from \(low) to \(high)"
        }
    }
}

package enum NumberText {
    /// A fraction within `allowed` (a part of 0…1), written as a number ("0.8") or a
    /// percentage ("80%", "2.5 %").
    package static func ratio(
        _ text: String, in allowed: ClosedRange<Double> = 0...1
    ) throws(NumberParseError)
        -> Double
    {
        try fraction(text, kind: .ratio, in: allowed)
    }

    /// A fraction within `allowed`, written only as a percentage ("10%", "2.5%").
    package static func share(
        _ text: String, in allowed: ClosedRange<Double> = 0...1
    ) throws(NumberParseError)
        -> Double
    {
        try fraction(text, kind: .share, in: allowed)
    }

    /// A plain number within `allowed`, such as a weight ("1", "2.5").
    package static func number(_ text: String, in allowed: ClosedRange<Double>) throws(NumberParseError) -> Double {
        func fail(_ reason: String) -> NumberParseError {
            NumberParseError(kind: .number, input: text, reason: reason, allowed: allowed)
        }
        let number = try read(text, fail: fail)
        guard number.suffix.isEmpty else { throw fail("unexpected '\(number.suffix)' after the number") }
        return try check(number.doubleValue, in: allowed, shown: plain, fail: fail)
    }

    /// A whole number within `allowed`: digits only.
    package static func wholeNumber(_ text: String, in allowed: ClosedRange<Int>) throws(NumberParseError) -> Int {
        func fail(_ reason: String) -> NumberParseError {
            NumberParseError(
                kind: .wholeNumber, input: text, reason: reason,
                allowed: Double(allowed.lowerBound)...Double(allowed.upperBound))
        }
        let number = try read(text, fail: fail)
        guard number.fraction.isEmpty else { throw fail("it is not a whole number") }
        guard number.suffix.isEmpty else { throw fail("unexpected '\(number.suffix)' after the number") }
        guard let value = number.scaled(by: 1), value <= UInt64(Int.max), allowed.contains(Int(value)) else {
            throw fail(
                allowed.lowerBound > 0 && number.isZero
                    ? "it is less than \(allowed.lowerBound)" : "it is more than \(allowed.upperBound)")
        }
        return Int(value)
    }

    private static func fraction(
        _ text: String, kind: NumberParseError.Kind, in allowed: ClosedRange<Double>
    ) throws(NumberParseError) -> Double {
        func fail(_ reason: String) -> NumberParseError {
            NumberParseError(kind: kind, input: text, reason: reason, allowed: allowed)
        }
        let number = try read(text, fail: fail)
        let value: Double
        switch number.suffix {
        case "%": value = number.doubleValue / 100
        case "" where kind == .ratio: value = number.doubleValue
        case "": throw fail("it does not end with '%'")
        default: throw fail("unexpected '\(number.suffix)' after the number")
        }
        return try check(value, in: allowed, shown: number.suffix == "%" ? percent : plain, fail: fail)
    }

    private static func read(
        _ text: String, fail: (String) -> NumberParseError
    ) throws(NumberParseError) -> DecimalText {
        do {
            return try DecimalText(text, negative: "it")
        } catch {
            throw fail(error.reason == "it cannot be negative" ? "it is negative" : error.reason)
        }
    }

    private static func check(
        _ value: Double, in allowed: ClosedRange<Double>, shown: (Double) -> String,
        fail: (String) -> NumberParseError
    ) throws(NumberParseError) -> Double {
        guard value.isFinite, value <= allowed.upperBound else {
            throw fail("it is more than \(shown(allowed.upperBound))")
        }
        guard value >= allowed.lowerBound else { throw fail("it is less than \(shown(allowed.lowerBound))") }
        return value
    }

    /// 10.0 as "10", 2.5 as "2.5": bounds in messages.
    static func plain(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// 0.1 as "10%", 0.025 as "2.5%".
    static func percent(_ value: Double) -> String {
        let percent = (value * 100 * 1000).rounded() / 1000
        return plain(percent) + "%"
    }
}
