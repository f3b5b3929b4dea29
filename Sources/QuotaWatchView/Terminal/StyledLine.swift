import QuotaWatchCore

/// The eight colours every colour terminal has; what they look like is the terminal's choice.
package enum TerminalColor: Int16, Sendable, CaseIterable {
    case black = 0
    case red, green, yellow, blue, magenta, cyan, white
}

/// How a run of text looks. nil colours are the terminal's own (its default foreground and
/// background), so the view respects light and dark themes.
package struct TextStyle: Hashable, Sendable {
    package var foreground: TerminalColor?
    package var background: TerminalColor?
    package var bold: Bool
    package var reverse: Bool
    package var dim: Bool

    package init(
        foreground: TerminalColor? = nil, background: TerminalColor? = nil, bold: Bool = false, reverse: Bool = false,
        dim: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
    }

    package static let plain = TextStyle()
    package static let bold = TextStyle(bold: true)
    package static let dim = TextStyle(dim: true)
    package static let reverse = TextStyle(reverse: true)
}

/// A run of text in one style. Its text never holds a character a terminal would act on:
/// whatever a layout hands in is escaped (``HumanText/escaped(_:)``) as every human output
/// escapes names, so no name can reach the screen raw.
package struct StyledSpan: Hashable, Sendable {
    package private(set) var text: String
    package var style: TextStyle

    package init(_ text: String, _ style: TextStyle = .plain) {
        self.text = HumanText.escaped(text)
        self.style = style
    }
}

/// One screen line: spans drawn left to right from column 0. What goes past the screen's
/// width is cut by the screen; layouts cut by display width first (``DisplayWidth``).
package struct StyledLine: Hashable, Sendable {
    package var spans: [StyledSpan]

    package init(_ spans: [StyledSpan] = []) { self.spans = spans }
    package init(_ text: String, _ style: TextStyle = .plain) { spans = [StyledSpan(text, style)] }

    package static let blank = StyledLine()

    /// The text without styles, as a test or a pipe would see it.
    package var text: String { spans.map(\.text).joined() }

    package mutating func append(_ text: String, _ style: TextStyle = .plain) {
        spans.append(StyledSpan(text, style))
    }

    /// The line cut to `columns` display columns, styles kept.
    package func clipped(to columns: Int, width: DisplayWidth) -> StyledLine {
        var result = StyledLine()
        var used = 0
        for span in spans {
            guard used < columns else { break }
            let spanColumns = width.columns(span.text)
            if used + spanColumns <= columns {
                result.spans.append(span)
                used += spanColumns
            } else {
                var cut = ""
                for scalar in span.text.unicodeScalars {
                    let scalarColumns = max(0, width.scalarWidth(scalar))
                    if used + scalarColumns > columns { break }
                    cut.unicodeScalars.append(scalar)
                    used += scalarColumns
                }
                result.spans.append(StyledSpan(cut, span.style))
                break
            }
        }
        return result
    }

    /// The line's columns.
    package func columns(_ width: DisplayWidth) -> Int { spans.reduce(0) { $0 + width.columns($1.text) } }
}
