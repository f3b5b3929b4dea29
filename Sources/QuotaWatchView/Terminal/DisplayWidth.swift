import QuotaWatchCore

/// How many terminal columns text takes: 2 for wide (East Asian, most emoji), 0 for combining
/// marks, 1 otherwise. The terminal toolkit hands layouts the C library's `wcwidth` so they
/// agree with what the terminal draws; ``builtIn`` is a pure table close to it, for tests and
/// for code that runs without a terminal.
package struct DisplayWidth: Sendable {
    /// Columns of one scalar; negative for one that cannot be shown (a control character).
    package let scalarWidth: @Sendable (Unicode.Scalar) -> Int

    package init(scalarWidth: @escaping @Sendable (Unicode.Scalar) -> Int) { self.scalarWidth = scalarWidth }

    /// Columns of `text` once ``printable(_:)`` has replaced what cannot be shown.
    package func columns(_ text: String) -> Int {
        var total = 0
        for scalar in text.unicodeScalars { total += max(0, scalarWidth(scalar)) }
        return total
    }

    /// `text` with every character a terminal would act on (``HumanText``'s list) and every
    /// scalar the table says cannot be shown written as its UTF-8 bytes in `\xNN` form, as every
    /// human output writes them, so a name holding a newline, an escape sequence or a
    /// direction override cannot move the cursor or break the layout.
    package func printable(_ text: String) -> String {
        let shown = HumanText.escaped(text)
        guard shown.unicodeScalars.contains(where: { scalarWidth($0) < 0 }) else { return shown }
        var output = ""
        for scalar in shown.unicodeScalars {
            if scalarWidth(scalar) < 0 {
                for byte in String(scalar).utf8 {
                    output += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// The longest prefix of `text` that fits in `columns`, with `…` at the end when something
    /// was cut; never splits a wide character across the edge (a gap is padded with a space).
    package func truncated(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if self.columns(text) <= columns { return text }
        var output = ""
        var used = 0
        let room = columns - 1  // for the ellipsis
        for scalar in text.unicodeScalars {
            let width = max(0, scalarWidth(scalar))
            if used + width > room { break }
            output.unicodeScalars.append(scalar)
            used += width
        }
        output += String(repeating: " ", count: room - used) + "…"
        return output
    }

    /// The end of `text` that fits in `columns`, with `…` in front when something was cut:
    /// for paths, whose last components say most.
    package func truncatedFront(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if self.columns(text) <= columns { return text }
        var kept: [Unicode.Scalar] = []
        var used = 0
        let room = columns - 1
        for scalar in text.unicodeScalars.reversed() {
            let width = max(0, scalarWidth(scalar))
            if used + width > room { break }
            kept.append(scalar)
            used += width
        }
        var output = "…" + String(repeating: " ", count: room - used)
        output.unicodeScalars.append(contentsOf: kept.reversed())
        return output
    }

    /// `text` truncated or padded with spaces to exactly `columns`.
    package func padded(_ text: String, to columns: Int, alignRight: Bool = false) -> String {
        let cut = truncated(text, to: columns)
        let gap = String(repeating: " ", count: max(0, columns - self.columns(cut)))
        return alignRight ? gap + cut : cut + gap
    }

    /// A pure approximation of glibc's `wcwidth` for the ranges names and emoji use.
    package static let builtIn = DisplayWidth { scalar in
        let value = scalar.value
        if value < 0x20 || (0x7f..<0xa0).contains(value) { return -1 }
        if zeroWidth.contains(where: { $0.contains(value) }) { return 0 }
        if wide.contains(where: { $0.contains(value) }) { return 2 }
        return 1
    }

    private static let zeroWidth: [ClosedRange<UInt32>] = [
        0x0300...0x036f, 0x0483...0x0489, 0x0591...0x05bd, 0x0610...0x061a, 0x064b...0x065f, 0x0e31...0x0e31,
        0x0e34...0x0e3a, 0x200b...0x200f, 0x202a...0x202e, 0x2060...0x2064, 0x20d0...0x20f0, 0xfe00...0xfe0f,
        0xfe20...0xfe2f, 0xfeff...0xfeff, 0x1f3fb...0x1f3ff, 0xe0100...0xe01ef,
    ]

    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115f, 0x231a...0x231b, 0x2329...0x232a, 0x23e9...0x23ec, 0x23f0...0x23f0, 0x23f3...0x23f3,
        0x25fd...0x25fe, 0x2614...0x2615, 0x2648...0x2653, 0x267f...0x267f, 0x2693...0x2693, 0x26a1...0x26a1,
        0x26aa...0x26ab, 0x26bd...0x26be, 0x26c4...0x26c5, 0x26ce...0x26ce, 0x26d4...0x26d4, 0x26ea...0x26ea,
        0x26f2...0x26f3, 0x26f5...0x26f5, 0x26fa...0x26fa, 0x26fd...0x26fd, 0x2705...0x2705, 0x270a...0x270b,
        0x2728...0x2728, 0x274c...0x274c, 0x274e...0x274e, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27b0...0x27b0, 0x27bf...0x27bf, 0x2b1b...0x2b1c, 0x2b50...0x2b50, 0x2b55...0x2b55, 0x2e80...0x303e,
        0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff, 0xa000...0xa4cf, 0xa960...0xa97f, 0xac00...0xd7a3,
        0xf900...0xfaff, 0xfe10...0xfe19, 0xfe30...0xfe6f, 0xff00...0xff60, 0xffe0...0xffe6, 0x16fe0...0x18cff,
        0x1b000...0x1b2ff, 0x1f004...0x1f004, 0x1f0cf...0x1f0cf, 0x1f18e...0x1f18e, 0x1f191...0x1f19a,
        0x1f200...0x1f251, 0x1f300...0x1f320, 0x1f32d...0x1f335, 0x1f337...0x1f37c, 0x1f37e...0x1f393,
        0x1f3a0...0x1f3ca, 0x1f3cf...0x1f3d3, 0x1f3e0...0x1f3f0, 0x1f3f4...0x1f3f4, 0x1f3f8...0x1f43e,
        0x1f440...0x1f440, 0x1f442...0x1f4fc, 0x1f4ff...0x1f53d, 0x1f54b...0x1f54e, 0x1f550...0x1f567,
        0x1f57a...0x1f57a, 0x1f595...0x1f596, 0x1f5a4...0x1f5a4, 0x1f5fb...0x1f64f, 0x1f680...0x1f6c5,
        0x1f6cc...0x1f6cc, 0x1f6d0...0x1f6d2, 0x1f6d5...0x1f6d7, 0x1f6eb...0x1f6ec, 0x1f6f4...0x1f6fc,
        0x1f7e0...0x1f7eb, 0x1f90c...0x1f93a, 0x1f93c...0x1f945, 0x1f947...0x1f9ff, 0x1fa70...0x1faff,
        0x20000...0x2fffd, 0x30000...0x3fffd,
    ]
}
