import QuotaWatchCore

/// Shares written as percentages: "10%", "2.5%".
package enum ShareText {
    package typealias ParseError = NumberParseError

    /// Parses "10%" as 0.1: a percentage from 0% to 100%, as ``NumberText/share(_:in:)`` reads it.
    package static func parse(_ text: String) throws(ParseError) -> Double {
        try NumberText.share(text)
    }

    /// Formats 0.1 as "10%".
    package static func format(_ share: Double) -> String {
        let percent = (share * 100 * 1000).rounded() / 1000
        if percent == percent.rounded() { return "\(Int(percent))%" }
        return "\(percent)%"
    }
}

/// Sizes spelt exactly, in the largest unit that divides them: "200MB", "1.5GiB" is
/// "1536MiB", 1234567 is "1234567B". What check-config prints, so it can be pasted back.
package enum SizeText {
    package static func exact(_ bytes: UInt64) -> String { ByteCount.exactText(bytes) }
}

/// `package`: the CLI's run options (CommandLinePolicy) trim their list items the same way.
extension StringProtocol {
    package func trimming(_ characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
