/// A framed box drawn over the middle of a screen: the help screen, a confirmation.
package struct Overlay: Hashable, Sendable {
    package var title: String
    package var lines: [StyledLine]
    package var footer: String

    package init(title: String, lines: [StyledLine], footer: String) {
        self.title = title
        self.lines = lines
        self.footer = footer
    }

    /// A help screen: one line per key, the keys in bold and aligned.
    package static func help(title: String, keys: [(key: String, action: String)], footer: String) -> Overlay {
        let keyColumns = keys.map(\.key.count).max() ?? 0
        let lines = keys.map { entry in
            StyledLine([
                StyledSpan(entry.key + String(repeating: " ", count: keyColumns - entry.key.count + 2), .bold),
                StyledSpan(entry.action),
            ])
        }
        return Overlay(title: title, lines: lines, footer: footer)
    }

    /// Whether the box shows whole on a screen of `rows` by `columns`: every line, none cut.
    /// A question the user is asked to answer counts as asked only then.
    package func fits(rows: Int, columns: Int, width: DisplayWidth) -> Bool {
        rows >= lines.count + 4 && columns >= contentColumns(width) + 4
    }

    private func contentColumns(_ width: DisplayWidth) -> Int {
        max(10, ([width.columns(title) + 2, width.columns(footer)] + lines.map { $0.columns(width) }).max() ?? 0)
    }

    /// `screen` (`rows` lines of `columns`) with the box drawn over its middle, cut to fit.
    package func drawn(
        over screen: [StyledLine], rows: Int, columns: Int, width: DisplayWidth
    ) -> [StyledLine] {
        var result = screen + Array(repeating: StyledLine.blank, count: max(0, rows - screen.count))
        let inner = max(10, min(contentColumns(width), columns - 4))
        let boxColumns = inner + 4
        let boxRows = min(rows, lines.count + 4)
        let top = max(0, (rows - boxRows) / 2)
        let left = max(0, (columns - boxColumns) / 2)
        var box: [StyledLine] = []
        let border = TextStyle.reverse
        let padding = StyledLine([
            StyledSpan(" ", border), StyledSpan(String(repeating: " ", count: inner + 2)), StyledSpan(" ", border),
        ])
        box.append(
            StyledLine(" " + width.padded(title, to: boxColumns - 2) + " ", TextStyle(bold: true, reverse: true)))
        box.append(padding)
        for line in lines.prefix(max(0, boxRows - 4)) {
            let clipped = line.clipped(to: inner, width: width)
            var row = StyledLine([StyledSpan(" ", border), StyledSpan(" ")])
            row.spans += clipped.spans
            row.append(String(repeating: " ", count: inner - clipped.columns(width) + 1))
            row.append(" ", border)
            box.append(row)
        }
        // The box is as tall as it was measured: a blank row under the lines, as over them.
        if box.count < boxRows - 1 { box.append(padding) }
        box.append(StyledLine(" " + width.padded(footer, to: boxColumns - 2) + " ", border))
        // A margin of one blank cell around the box, where the screen has room: text of the
        // screen beneath never touches the border, so none reads as part of the box.
        let marginLeft = max(0, left - 1)
        let marginColumns = min(columns, left + boxColumns + 1) - marginLeft
        let blank = StyledLine(String(repeating: " ", count: marginColumns))
        for row in [top - 1, top + box.count] where (0..<rows).contains(row) {
            result[row] = Self.splice(blank, into: result[row], at: marginLeft, width: width)
        }
        for (offset, boxLine) in box.enumerated() where top + offset < rows {
            let row = top + offset
            result[row] = Self.splice(blank, into: result[row], at: marginLeft, width: width)
            result[row] = Self.splice(boxLine, into: result[row], at: left, width: width)
        }
        return result
    }

    /// `line` with `piece` written over it from column `left`.
    static func splice(_ piece: StyledLine, into line: StyledLine, at left: Int, width: DisplayWidth) -> StyledLine {
        var before = line.clipped(to: left, width: width)
        let gap = left - before.columns(width)
        if gap > 0 { before.append(String(repeating: " ", count: gap)) }
        before.spans += piece.spans
        let end = left + piece.columns(width)
        before.spans += Self.dropping(end, from: line, width: width).spans
        return before
    }

    /// What is left of `line` after its first `columns` columns; a wide character cut in half
    /// becomes a space.
    static func dropping(_ columns: Int, from line: StyledLine, width: DisplayWidth) -> StyledLine {
        var result = StyledLine()
        var used = 0
        for span in line.spans {
            var kept = ""
            for scalar in span.text.unicodeScalars {
                let scalarColumns = max(0, width.scalarWidth(scalar))
                if used >= columns {
                    kept.unicodeScalars.append(scalar)
                } else if used + scalarColumns > columns {
                    kept += " "
                }
                used += scalarColumns
            }
            if !kept.isEmpty { result.append(kept, span.style) }
        }
        return result
    }
}
