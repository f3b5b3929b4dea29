/// The number every value of QuotaWatch is written with: ASCII digits, then optionally a
/// point and more digits ("90", "1.5", "0.25"), then what the kind of value allows after it
/// (a unit, "%"). Nothing else: no sign, exponent, hexadecimal, digit grouping, other
/// scripts' digits or surrounding spaces. `Double(String)` and `Int(String)` would take
/// `0x1p-1`, `0x10`, `1e400`, `inf`, `nan`, `+5` or `٣`, so no value goes through them.
struct DecimalText {
    var whole: ArraySlice<UInt8>
    var fraction: ArraySlice<UInt8>
    /// What follows the number (a unit), spaces between the two skipped.
    var suffix: String

    /// Why the text is not a number of this grammar, to be put in the kind's own message.
    struct Failure: Error { var reason: String }

    /// Reads the number at the start of `text`; `negative` names what cannot be negative.
    init(_ text: String, negative: String) throws(Failure) {
        let bytes = Array(text.utf8)[...]
        guard let first = bytes.first else { throw Failure(reason: "it is empty") }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") || bytes.last == UInt8(ascii: " ")
            || bytes.last == UInt8(ascii: "\t")
        {
            throw Failure(reason: "it has spaces around it")
        }
        if first == UInt8(ascii: "-") { throw Failure(reason: "\(negative) cannot be negative") }
        if first == UInt8(ascii: "+") { throw Failure(reason: "write it without a '+' sign") }
        if first == UInt8(ascii: ".") {
            throw Failure(reason: "write a digit before the decimal point, such as 0\(text)")
        }
        if bytes.count >= 2, first == UInt8(ascii: "0"), bytes[bytes.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
            throw Failure(reason: "hexadecimal is not accepted; write decimal digits")
        }
        var index = bytes.startIndex
        while index < bytes.endIndex, Self.isDigit(bytes[index]) { index += 1 }
        guard index > bytes.startIndex else { throw Failure(reason: "it does not start with a number") }
        whole = bytes[bytes.startIndex..<index]
        fraction = []
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            let start = index + 1
            index = start
            while index < bytes.endIndex, Self.isDigit(bytes[index]) { index += 1 }
            fraction = bytes[start..<index]
            if fraction.isEmpty { throw Failure(reason: "no digits after the decimal point") }
        }
        var rest = bytes[index...]
        if let next = rest.first, next == UInt8(ascii: ",") || next == UInt8(ascii: "_") || next == UInt8(ascii: "'"),
            rest.dropFirst().first.map(Self.isDigit) == true
        {
            throw Failure(reason: "write the number without separators, with '.' as the decimal point")
        }
        if let next = rest.first, next | 0x20 == UInt8(ascii: "e"),
            let after = rest.dropFirst().first,
            Self.isDigit(after) || after == UInt8(ascii: "+") || after == UInt8(ascii: "-")
        {
            throw Failure(reason: "exponents such as 1e3 are not accepted; write the digits out")
        }
        while rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
        suffix = String(decoding: rest, as: UTF8.self)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    var isZero: Bool { (whole + fraction).allSatisfy { $0 == UInt8(ascii: "0") } }

    /// The number × `multiplier`, rounded half up to a whole number; nil past `UInt64.max`.
    /// Exact: "1.5" × 2^30 is 1 610 612 736. Fraction digits beyond 18 cannot move the result
    /// by a whole unit of a multiplier below 10^18, so they are dropped.
    func scaled(by multiplier: UInt64) -> UInt64? {
        var value: UInt64 = 0
        for digit in whole {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        let (scaledWhole, overflow) = value.multipliedReportingOverflow(by: multiplier)
        if overflow { return nil }
        var numerator: UInt64 = 0
        var denominator: UInt64 = 1
        for digit in fraction.prefix(18) {
            numerator = numerator * 10 + UInt64(digit - UInt8(ascii: "0"))
            denominator *= 10
        }
        let product = numerator.multipliedFullWidth(by: multiplier)
        guard product.high < denominator else { return nil }
        let (part, remainder) = denominator.dividingFullWidth(product)
        let rounded = part + (remainder >= denominator - remainder ? 1 : 0)
        let (total, overflowTotal) = scaledWhole.addingReportingOverflow(rounded)
        return overflowTotal ? nil : total
    }

    /// The number as a Double (infinite when it has more than ~308 whole digits, which any
    /// range then refuses). The text is plain digits by now, so nothing but them is read.
    var doubleValue: Double {
        let text = String(
            decoding: fraction.isEmpty ? Array(whole) : Array(whole) + [UInt8(ascii: ".")] + fraction,
            as: UTF8.self)
        return Double(text) ?? .infinity
    }
}
