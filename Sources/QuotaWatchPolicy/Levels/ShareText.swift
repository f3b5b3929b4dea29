/// Shares written as percentages: "10%", "2.5%".
public enum ShareText {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var input: String
        public var reason: String
        public var description: String {
            "invalid share '\(input)': \(reason); write a percentage from 0% to 100%, such as 10% or 2.5%"
        }
    }

    /// Parses "10%" as 0.1.
    public static func parse(_ text: String) throws(ParseError) -> Double {
        let trimmed = text.trimming(" \t")
        guard trimmed.hasSuffix("%") else { throw ParseError(input: text, reason: "it does not end with '%'") }
        let number = trimmed.dropLast().trimming(" \t")
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number)
        else { throw ParseError(input: text, reason: "'\(number)' is not a number") }
        guard value <= 100 else { throw ParseError(input: text, reason: "it is more than 100%") }
        return value / 100
    }

    /// Formats 0.1 as "10%".
    public static func format(_ share: Double) -> String {
        let percent = (share * 100 * 1000).rounded() / 1000
        if percent == percent.rounded() { return "\(Int(percent))%" }
        return "\(percent)%"
    }
}

/// Sizes spelt exactly, in the largest unit that divides them: "200MB", "1.5GiB" is
/// "1536MiB", 1234567 is "1234567B". What check-config prints, so it can be pasted back.
public enum SizeText {
    public static func exact(_ bytes: UInt64) -> String {
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

extension StringProtocol {
    func trimming(_ characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
