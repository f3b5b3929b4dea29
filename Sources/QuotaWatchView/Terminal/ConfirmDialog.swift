/// A yes/no question before something that cannot be undone.
public struct ConfirmDialog: Hashable, Sendable {
    public enum Answer: Hashable, Sendable {
        case confirmed, cancelled
    }

    public var question: String
    public var detail: [String]

    public init(question: String, detail: [String] = []) {
        self.question = question
        self.detail = detail
    }

    /// `y` confirms; `n`, `q` and escape cancel; nil for any other key (keep asking).
    public func answer(to key: TerminalKey) -> Answer? {
        switch key {
        case .character("y"), .character("Y"): .confirmed
        case .character("n"), .character("N"), .character("q"), .escape: .cancelled
        default: nil
        }
    }

    public var overlay: Overlay {
        Overlay(
            title: "Confirm", lines: [StyledLine(question, .bold)] + detail.map { StyledLine($0) },
            footer: "y: yes   n / esc: no")
    }
}
