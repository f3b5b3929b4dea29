/// Turns raw name bytes into text for people and JSON without losing anything.
///
/// Linux names are bytes. Valid UTF-8 passes through; every byte that is not part of valid
/// UTF-8 becomes `\xNN` (two lowercase hex digits), and a backslash becomes `\\`, so the
/// escaped text maps back to exactly one byte string.
package enum EscapedName {
    package static func string(_ bytes: some Collection<UInt8>) -> String {
        var output = ""
        output.reserveCapacity(bytes.count)
        var remaining = Array(bytes)[...]
        while !remaining.isEmpty {
            let length = validSequenceLength(remaining)
            if length == 0 {
                let byte = remaining.removeFirst()
                output += "\\x" + hexDigits(byte)
            } else {
                let chunk = remaining.prefix(length)
                remaining = remaining.dropFirst(length)
                if chunk.first == UInt8(ascii: "\\") {
                    output += "\\\\"
                } else {
                    output += String(decoding: chunk, as: UTF8.self)
                }
            }
        }
        return output
    }

    /// The inverse of ``string(_:)``: nil when `text` holds a backslash escape it never writes.
    package static func bytes(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < input.count else { return nil }
            if input[index + 1] == UInt8(ascii: "\\") {
                output.append(byte)
                index += 2
            } else if input[index + 1] == UInt8(ascii: "x"), index + 3 < input.count,
                let value = UInt8(String(decoding: input[index + 2...index + 3], as: UTF8.self), radix: 16)
            {
                output.append(value)
                index += 4
            } else {
                return nil
            }
        }
        return output
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }

    /// Length of the valid UTF-8 scalar at the start of `bytes`, or 0 if it is not valid.
    private static func validSequenceLength(_ bytes: ArraySlice<UInt8>) -> Int {
        let lead = bytes[bytes.startIndex]
        let length: Int
        var minimum: UInt32
        switch lead {
        case 0x00...0x7f: return 1
        case 0xc2...0xdf:
            length = 2
            minimum = 0x80
        case 0xe0...0xef:
            length = 3
            minimum = 0x800
        case 0xf0...0xf4:
            length = 4
            minimum = 0x10000
        default: return 0
        }
        guard bytes.count >= length else { return 0 }
        var scalar = UInt32(lead) & (0xff >> (length + 1))
        for offset in 1..<length {
            let byte = bytes[bytes.startIndex + offset]
            guard byte & 0xc0 == 0x80 else { return 0 }
            scalar = (scalar << 6) | UInt32(byte & 0x3f)
        }
        guard scalar >= minimum, scalar <= 0x10ffff, !(0xd800...0xdfff).contains(scalar) else { return 0 }
        return length
    }
}
