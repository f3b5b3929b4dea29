/// The path form that `quotawatch scan --json` reports, written independently
/// of the product so that the tests check its escaping.
///
/// Bytes that belong to a well-formed UTF-8 sequence are kept as characters,
/// except the backslash, which becomes two backslashes. Every other byte
/// becomes `\xNN` with two lowercase hex digits.
public enum ReportPathEscaping {
    /// The reported form of a path relative to the scan root: "." for the
    /// root itself (an empty path), otherwise the escaped bytes.
    public static func reportPath(relative bytes: [UInt8]) -> String {
        bytes.isEmpty ? "." : escape(bytes)
    }

    /// Escapes arbitrary bytes as described on the type.
    public static func escape(_ bytes: [UInt8]) -> String {
        var result = ""
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let length = wellFormedSequenceLength(in: bytes, at: index)
            if length == 0 {
                result += "\\x" + hexDigits(bytes[index])
                index += 1
            } else if length == 1 && bytes[index] == UInt8(ascii: "\\") {
                result += "\\\\"
                index += 1
            } else {
                result += String(decoding: bytes[index..<index + length], as: UTF8.self)
                index += length
            }
        }
        return result
    }

    /// The length of the well-formed UTF-8 sequence starting at `index`, or
    /// 0 when the byte there does not start one. Follows the table of
    /// well-formed byte sequences in the Unicode standard (chapter 3): no
    /// overlong forms, no surrogates, nothing above U+10FFFF.
    static func wellFormedSequenceLength(in bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let secondRange: ClosedRange<UInt8>
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF:
            length = 2
            secondRange = 0x80...0xBF
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
            secondRange = 0x80...0xBF
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3:
            length = 4
            secondRange = 0x80...0xBF
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        guard secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) {
            return 0
        }
        return length
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
