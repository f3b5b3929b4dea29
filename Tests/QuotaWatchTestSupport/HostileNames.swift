/// Names that would act on a terminal if printed raw, and the one escaped form every human
/// output must show instead (docs/output.md, "Names in human output").
public enum HostileNames {
    /// Each name's bytes and how people must see it.
    public static let corpus: [(bytes: [UInt8], shown: String)] = [
        (Array("esc\u{1b}[31mred".utf8), #"esc\x1b[31mred"#),
        (Array("cr\rover".utf8), #"cr\x0dover"#),
        (Array("nl\nline".utf8), #"nl\x0aline"#),
        (Array("tab\tcell".utf8), #"tab\x09cell"#),
        (Array("bell\u{07}del\u{7f}".utf8), #"bell\x07del\x7f"#),
        ([0x63, 0x31, 0xc2, 0x9b, 0x33, 0x31, 0x6d], #"c1\xc2\x9b31m"#),
        (Array("bidi\u{202e}cba".utf8), #"bidi\xe2\x80\xaecba"#),
        (Array("sep\u{2028}x".utf8), #"sep\xe2\x80\xa8x"#),
        ([0x62, 0x61, 0x64, 0xff, 0xfe], #"bad\xff\xfe"#),
        (Array("back\\slash".utf8), #"back\\slash"#),
    ]

    /// What in `output` a terminal would act on: a byte that is not UTF-8, a C0 control other
    /// than the output's own newline and tab, DEL, a C1 control, a line or paragraph separator
    /// or a bidirectional formatting character. Empty when there is none.
    public static func rawControls(in output: [UInt8]) -> [String] {
        guard let text = String(validating: output, as: UTF8.self) else { return ["bytes that are not UTF-8"] }
        var found: [String] = []
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let unsafe =
                (value < 0x20 && value != 0x0a && value != 0x09) || (0x7f...0x9f).contains(value)
                || [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].contains(value) || (0x202a...0x202e).contains(value)
                || (0x2066...0x2069).contains(value)
            if unsafe { found.append("U+" + String(value, radix: 16)) }
        }
        return found
    }
}
