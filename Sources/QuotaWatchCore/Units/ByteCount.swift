/// A size given by a person: "200MB", "1.5GiB", "4096", "0".
package struct ByteCount: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var bytes: UInt64

    package init(bytes: UInt64) { self.bytes = bytes }

    package var description: String { ByteFormat.decimal.string(bytes) }

    /// Every size the grammar can write: 0 to 2^64 − 1 bytes.
    package static let anySize: ClosedRange<UInt64> = 0...UInt64.max

    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var input: String
        package var reason: String
        /// The sizes the value was read for.
        package var allowed: ClosedRange<UInt64> = ByteCount.anySize

        package init(input: String, reason: String, allowed: ClosedRange<UInt64> = ByteCount.anySize) {
            self.input = input
            self.reason = reason
            self.allowed = allowed
        }

        package var description: String {
            "invalid size '\(input)': \(reason); write a whole or decimal number with an optional unit, "
                + "such as 500MB, 1.5GiB or 4096 (B, KB, MB, GB, TB, PB in powers of 1000; KiB, MiB, GiB, TiB, PiB "
                + "in powers of 1024), from \(ByteCount.exactText(allowed.lowerBound)) to "
                + "\(ByteCount.exactText(allowed.upperBound))"
        }
    }

    private static let multipliers: [String: UInt64] = [
        "": 1, "b": 1,
        "k": 1000, "kb": 1000, "m": 1_000_000, "mb": 1_000_000, "g": 1_000_000_000, "gb": 1_000_000_000,
        "t": 1_000_000_000_000, "tb": 1_000_000_000_000, "p": 1_000_000_000_000_000, "pb": 1_000_000_000_000_000,
        "ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
        "ti": 1 << 40, "tib": 1 << 40, "pi": 1 << 50, "pib": 1 << 50,
    ]

    /// Parses a size within `allowed`. The grammar (docs/configuration.md, "Values"): a number as
    /// ``DecimalText`` reads it, optionally spaces, then an optional unit in any case
    /// (`10mb` is `10MB`; `K`, `M`, … alone are kB, MB, …). Fractions are exact and rounded
    /// half up to a whole byte: "1.5GiB" is 1 610 612 736 B; a size that is not 0 but
    /// rounds to 0 B ("0.4B") is refused rather than read as 0.
    package init(parsing text: String, in allowed: ClosedRange<UInt64> = ByteCount.anySize) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason, allowed: allowed) }
        let number: DecimalText
        do {
            number = try DecimalText(text, negative: "sizes")
        } catch {
            throw fail(error.reason)
        }
        guard let multiplier = Self.multipliers[number.suffix.lowercased()] else {
            throw fail("unknown unit '\(number.suffix)'")
        }
        guard let bytes = number.scaled(by: multiplier) else {
            throw fail("it is larger than \(UInt64.max) bytes")
        }
        if bytes == 0, !number.isZero { throw fail("it is less than one byte") }
        guard allowed.contains(bytes) else {
            throw fail(
                bytes < allowed.lowerBound
                    ? "it is less than \(Self.exactText(allowed.lowerBound))"
                    : "it is more than \(Self.exactText(allowed.upperBound))")
        }
        self.bytes = bytes
    }

    /// Sizes spelt exactly, in the largest unit that divides them: "200MB", 1.5 GiB is
    /// "1536MiB", 1234567 is "1234567B". What messages and check-config print, so it can be
    /// pasted back.
    package static func exactText(_ bytes: UInt64) -> String {
        if bytes == 0 { return "0" }
        let units: [(String, UInt64)] = [
            ("PB", 1_000_000_000_000_000), ("PiB", 1 << 50), ("TB", 1_000_000_000_000), ("TiB", 1 << 40),
            ("GB", 1_000_000_000), ("GiB", 1 << 30), ("MB", 1_000_000), ("MiB", 1 << 20), ("kB", 1000),
            ("KiB", 1 << 10),
        ]
        for (unit, size) in units where bytes % size == 0 { return "\(bytes / size)\(unit)" }
        return "\(bytes)B"
    }
}
