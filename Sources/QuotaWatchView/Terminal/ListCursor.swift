/// A cursor in a list longer than the rows it has on screen: which item is selected and which
/// is the first one shown. Pure, so a list's scrolling is tested without a terminal.
package struct ListCursor: Hashable, Sendable {
    package private(set) var selected = 0
    package private(set) var firstVisible = 0

    package init() {}

    /// Moves for an arrow, page or home/end key; returns false for any other key.
    @discardableResult
    package mutating func handle(_ key: TerminalKey, count: Int, visibleRows: Int) -> Bool {
        let page = max(1, visibleRows - 1)
        switch key {
        case .up: selected -= 1
        case .down: selected += 1
        case .pageUp: selected -= page
        case .pageDown: selected += page
        case .home: selected = 0
        case .end: selected = count - 1
        default: return false
        }
        clamp(count: count, visibleRows: visibleRows)
        return true
    }

    /// Selects `index` (clamped) and scrolls it into view.
    package mutating func select(_ index: Int, count: Int, visibleRows: Int) {
        selected = index
        clamp(count: count, visibleRows: visibleRows)
    }

    /// Selects `index` with `firstVisible` at the top, as they were when the list was left
    /// (clamped to the list as it is now).
    package mutating func select(_ index: Int, firstVisible top: Int, count: Int, visibleRows: Int) {
        selected = index
        firstVisible = top
        clamp(count: count, visibleRows: visibleRows)
    }

    /// Keeps the selection inside the list and on screen after the list or the screen changed.
    package mutating func clamp(count: Int, visibleRows: Int) {
        selected = max(0, min(selected, count - 1))
        let rows = max(1, visibleRows)
        if selected < firstVisible { firstVisible = selected }
        if selected >= firstVisible + rows { firstVisible = selected - rows + 1 }
        firstVisible = max(0, min(firstVisible, max(0, count - rows)))
    }

    /// The indices shown, in order.
    package func visibleRange(count: Int, visibleRows: Int) -> Range<Int> {
        let start = min(firstVisible, max(0, count))
        return start..<min(count, start + max(0, visibleRows))
    }
}
