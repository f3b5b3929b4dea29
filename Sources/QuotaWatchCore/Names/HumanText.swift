/// The one way text from outside — a name, a config value, an argument — is shown to people.
///
/// It extends ``EscapedName``'s escaping (a byte that is not UTF-8 as `\xNN`, a backslash as
/// `\\`) to every character a terminal would act on instead of drawing: the C0 controls
/// (U+0000–U+001F, newline, tab and ESC included), DEL (U+007F), the C1 controls
/// (U+0080–U+009F), the line and paragraph separators (U+2028, U+2029) and the bidirectional
/// formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Each is
/// written as its UTF-8 bytes in `\xNN` form (ESC is `\x1b`, U+202E is `\xe2\x80\xae`), so a
/// name keeps to one line and one direction, and the shown text still maps back to exactly
/// one byte string: ``EscapedName/bytes(_:)`` reads it, and so does every option and config
/// key that takes a path.
package enum HumanText {
    /// A name as people see it: ``EscapedName/string(_:)`` with every unsafe character escaped.
    package static func name(_ bytes: some Collection<UInt8>) -> String {
        escaped(EscapedName.string(bytes))
    }

    /// `text` with every unsafe character (see the type's summary) written as `\xNN` bytes.
    /// Backslashes are left as they are: text that holds a name has them escaped already.
    package static func escaped(_ text: String) -> String {
        escaping(text) { isUnsafe($0) }
    }

    /// `text` as a human-readable stream may carry it: unsafe characters escaped, except the
    /// newline and tab the output itself is laid out with. This is the last guard of every
    /// human output (the console, the log); names are escaped whole before they get there.
    package static func forOutput(_ text: String) -> String {
        escaping(text) { $0 != "\n" && $0 != "\t" && isUnsafe($0) }
    }

    /// JSON text with every unsafe character that JSON encoders leave raw (DEL, C1, the
    /// separators, bidirectional controls) written as a `\uXXXX` escape. Such characters can only
    /// stand inside strings, where the escape decodes to the same character, so the document
    /// means exactly what it did.
    /// The newlines and tabs between tokens (JSON lines, pretty printing) stay.
    package static func jsonForTerminal(_ json: String) -> String {
        let escapes = { (scalar: Unicode.Scalar) in scalar != "\n" && scalar != "\t" && isUnsafe(scalar) }
        guard json.unicodeScalars.contains(where: escapes) else { return json }
        var output = ""
        output.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            if escapes(scalar) {
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Whether a terminal could act on `scalar` rather than draw it (see the type's summary).
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1f, 0x7f...0x9f, 0x061c, 0x200e, 0x200f, 0x2028...0x202e, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escaping(_ text: String, when unsafe: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: unsafe) else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if unsafe(scalar) {
                for byte in String(scalar).utf8 { output += "\\x" + hexDigits(byte) }
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }
}
