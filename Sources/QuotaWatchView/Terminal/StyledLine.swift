import QuotaWatchCore

/// The eight colours every colour terminal has; what they look like is the terminal's choice.
public enum TerminalColor: Int16, Sendable, CaseIterable {
    case black = 0
    case red, green, yellow, blue, magenta, cyan, white
}

/// How a run of text looks. nil colours are the terminal's own (its default foreground and
/// background), so the view respects light and dark themes.
public struct TextStyle: Hashable, Sendable {
    public var foreground: TerminalColor?
    public var background: TerminalColor?
    public var bold: Bool
    public var reverse: Bool
    public var dim: Bool

    public init(
        foreground: TerminalColor? = nil, background: TerminalColor? = nil, bold: Bool = false, reverse: Bool = false,
        dim: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
    }

    public static let plain = TextStyle()
    public static let bold = TextStyle(bold: true)
    public static let dim = TextStyle(dim: true)
    public static let reverse = TextStyle(reverse: true)
}

/// A run of text in one style. Its text never holds a character a terminal would act on:
/// whatever a layout hands in is escaped (``HumanText/escaped(_:)``) as every human output
/// escapes names, so no name can reach the screen raw.
public struct StyledSpan: Hashable, Sendable {
    public private(set) var text: String
    public var style: TextStyle

    public init(_ text: String, _ style: TextStyle = .plain) {
        self.text = HumanText.escaped(text)
        self.style = style
    }
}

/// One screen line: spans drawn left to right from column 0. What goes past the screen's
/// width is cut by the screen; layouts cut by display width first (``DisplayWidth``).
public struct StyledLine: Hashable, Sendable {
    public var spans: [StyledSpan]

    public init(_ spans: [StyledSpan] = []) { self.spans = spans }
    public init(_ text: String, _ style: TextStyle = .plain) { spans = [StyledSpan(text, style)] }

    public static let blank = StyledLine()

    /// The text without styles, as a test or a pipe would see it.
    public var text: String { spans.map(\.text).joined() }

    public mutating func append(_ text: String, _ style: TextStyle = .plain) {
        spans.append(StyledSpan(text, style))
    }

    /// The line cut to `columns` display columns, styles kept.
    public func clipped(to columns: Int, width: DisplayWidth) -> StyledLine {
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
    public func columns(_ width: DisplayWidth) -> Int { spans.reduce(0) { $0 + width.columns($1.text) } }
}
