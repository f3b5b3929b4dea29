/// A duration given by a person: "500ms", "90s", "15m", "2h", "7d".
public struct TimeSpan: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var duration: Duration

    public init(_ duration: Duration) { self.duration = duration }

    /// The shortest exact spelling in the units the parser accepts ("90s", "2h", "1500ms").
    public var description: String { Self.format(duration) }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var input: String
        public var reason: String
        public var description: String {
            "invalid duration '\(input)': \(reason); write a whole or decimal number with a unit, "
                + "such as 500ms, 90s, 15m, 2h or 7d (ms, s, m, h, d)"
        }
    }

    private static let unitMilliseconds: [String: Int64] = [
        "ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
    ]

    /// Parses a duration. A unit is required (a bare "90" could mean seconds or minutes);
    /// fractions are kept to the millisecond ("1.5h" is 90 minutes).
    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw ParseError(input: text, reason: "it is empty") }
        let bytes = Array(trimmed.utf8)
        if bytes.first == UInt8(ascii: "-") { throw ParseError(input: text, reason: "durations cannot be negative") }
        var index = 0
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        let whole = bytes[0..<index]
        var fraction: ArraySlice<UInt8> = []
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let start = index + 1
            index = start
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            fraction = bytes[start..<index]
            if fraction.isEmpty { throw ParseError(input: text, reason: "no digits after the decimal point") }
        }
        guard !whole.isEmpty else { throw ParseError(input: text, reason: "it does not start with a number") }
        let unit = String(decoding: bytes[index...], as: UTF8.self).trimmingSpaces.lowercased()
        guard !unit.isEmpty else { throw ParseError(input: text, reason: "it has no unit") }
        guard let perUnit = Self.unitMilliseconds[unit] else {
            throw ParseError(input: text, reason: "unknown unit '\(unit)'")
        }
        let tooLong = ParseError(input: text, reason: "it is longer than 100 years")
        guard whole.count <= 12, let wholeValue = Int64(String(decoding: whole, as: UTF8.self)) else { throw tooLong }
        var milliseconds = wholeValue * perUnit
        if !fraction.isEmpty {
            let digits = fraction.prefix(9)
            let numerator = Int64(String(decoding: digits, as: UTF8.self)) ?? 0
            var denominator: Int64 = 1
            for _ in digits { denominator *= 10 }
            milliseconds += (numerator * perUnit + denominator / 2) / denominator
        }
        guard milliseconds <= 100 * 365 * 86_400_000 else { throw tooLong }
        self.duration = .milliseconds(milliseconds)
    }

    /// Formats `duration` in the largest unit that states it exactly, down to milliseconds.
    public static func format(_ duration: Duration) -> String {
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
    public var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
