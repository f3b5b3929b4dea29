/// A key press as a view sees it, whatever the terminal sent for it.
package enum TerminalKey: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, backspace, escape, tab
    /// The terminal changed size; read the new size before drawing again.
    case resize
    /// A key this toolkit has no name for (a function key, say), by its curses code.
    case other(Int32)
}
