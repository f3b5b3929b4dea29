/// A size given by a person: "200MB", "1.5GiB", "4096", "0".
public struct ByteCount: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var bytes: UInt64

    public init(bytes: UInt64) { self.bytes = bytes }

    public var description: String { ByteFormat.decimal.string(bytes) }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var input: String
        public var reason: String
        public var description: String {
            "invalid size '\(input)': \(reason); write a whole or decimal number with an optional unit, "
                + "such as 500MB, 1.5GiB or 4096 (B, KB, MB, GB, TB, PB in powers of 1000; KiB, MiB, GiB, TiB, PiB in powers of 1024)"
        }
    }

    private static let multipliers: [String: UInt64] = [
        "": 1, "b": 1,
        "k": 1000, "kb": 1000, "m": 1_000_000, "mb": 1_000_000, "g": 1_000_000_000, "gb": 1_000_000_000,
        "t": 1_000_000_000_000, "tb": 1_000_000_000_000, "p": 1_000_000_000_000_000, "pb": 1_000_000_000_000_000,
        "ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
        "ti": 1 << 40, "tib": 1 << 40, "pi": 1 << 50, "pib": 1 << 50,
    ]

    /// Parses a size. Units are case-insensitive; a space may stand between number and unit.
    /// Fractions are exact: "1.5GiB" is 1 610 612 736 B; a fraction of a byte rounds half up.
    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw ParseError(input: text, reason: "it is empty") }
        let bytes = Array(trimmed.utf8)
        var index = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") {
            index += 1
        }
        let wholeDigits = bytes[0..<index]
        var fractionDigits: ArraySlice<UInt8> = []
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let start = index + 1
            index = start
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            fractionDigits = bytes[start..<index]
            if fractionDigits.isEmpty { throw ParseError(input: text, reason: "no digits after the decimal point") }
        }
        if wholeDigits.isEmpty {
            let reason =
                bytes.first == UInt8(ascii: "-") ? "sizes cannot be negative" : "it does not start with a number"
            throw ParseError(input: text, reason: reason)
        }
        let unitText = String(decoding: bytes[index...], as: UTF8.self).trimmingSpaces.lowercased()
        guard let multiplier = Self.multipliers[unitText] else {
            throw ParseError(input: text, reason: "unknown unit '\(unitText)'")
        }
        let tooLarge = ParseError(input: text, reason: "it is larger than \(UInt64.max) bytes")
        var whole: UInt64 = 0
        for digit in wholeDigits {
            let (times10, overflow1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { throw tooLarge }
            whole = sum
        }
        let (scaledWhole, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        if overflow { throw tooLarge }
        // fraction × multiplier, exactly: digits beyond 18 cannot change a whole byte count.
        var numerator: UInt64 = 0
        var denominator: UInt64 = 1
        for digit in fractionDigits.prefix(18) {
            numerator = numerator * 10 + UInt64(digit - UInt8(ascii: "0"))
            denominator *= 10
        }
        let product = numerator.multipliedFullWidth(by: multiplier)
        guard product.high < denominator else { throw tooLarge }
        let (fractionBytes, remainder) = denominator.dividingFullWidth(product)
        let rounded = fractionBytes + (remainder >= denominator - remainder ? 1 : 0)
        let (total, overflowTotal) = scaledWhole.addingReportingOverflow(rounded)
        if overflowTotal { throw tooLarge }
        self.bytes = total
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
