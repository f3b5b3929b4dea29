/// A yes/no question before something that cannot be undone.
package struct ConfirmDialog: Hashable, Sendable {
    package enum Answer: Hashable, Sendable {
        case confirmed, cancelled
    }

    package var question: String
    package var detail: [String]

    package init(question: String, detail: [String] = []) {
        self.question = question
        self.detail = detail
    }

    /// `y` confirms; `n`, `q` and escape cancel; nil for any other key (keep asking).
    package func answer(to key: TerminalKey) -> Answer? {
        switch key {
        case .character("y"), .character("Y"): .confirmed
        case .character("n"), .character("N"), .character("q"), .escape: .cancelled
        default: nil
        }
    }

    /// Like ``answer(to:)``, but `y` counts only when the question was drawn whole
    /// (`shownWhole`): a key pressed blind, in a window too small for the question or before
    /// it was drawn at the current size, confirms nothing.
    package func answer(to key: TerminalKey, shownWhole: Bool) -> Answer? {
        let answer = answer(to: key)
        return answer == .confirmed && !shownWhole ? nil : answer
    }

    /// Whether the question shows whole on a screen of `rows` by `columns`.
    package func fits(rows: Int, columns: Int, width: DisplayWidth) -> Bool {
        overlay.fits(rows: rows, columns: columns, width: width)
    }

    /// What a window too small for the question shows instead of it: that it is too small, and
    /// that no key deletes until the question can be read.
    package func tooSmallNotice(rows: Int, columns: Int, width: DisplayWidth) -> [StyledLine] {
        let message = [
            "window too small to show the question (\(columns)x\(rows)): nothing is done",
            "enlarge it to read it, or press n to cancel",
        ]
        var lines = Array(repeating: StyledLine.blank, count: max(1, rows))
        let top = max(0, (rows - message.count) / 2)
        for (offset, text) in message.enumerated() where top + offset < rows {
            lines[top + offset] = StyledLine(width.truncated(text, to: columns), offset == 0 ? .bold : .plain)
        }
        return lines
    }

    package var overlay: Overlay {
        Overlay(
            title: "Confirm", lines: [StyledLine(question, .bold)] + detail.map { StyledLine($0) },
            footer: "y: yes   n / esc: no")
    }
}
