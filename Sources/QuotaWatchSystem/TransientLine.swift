import Synchronization

/// A line on standard error that the next one replaces (a crawl's progress), and that
/// anything else written to the terminal must clear first: a log line, a warning, a table, the
/// note after Ctrl-C. Every writer of the program's output calls ``clear()`` before it
/// writes (``Log``, the CLI's console), so no text is ever appended to a progress line.
package enum TransientLine {
    /// Whether a line is shown now; held while writing, so that a clear and a draw from two
    /// threads never interleave.
    private static let shown = Mutex<Bool>(false)
    private static let erase = "\r\u{1b}[K"

    /// Replaces the transient line with `text` (one line, no newline).
    package static func draw(_ text: String) {
        shown.withLock { shown in
            try? FileDescriptor.standardError.writeAll((erase + text).utf8)
            shown = true
        }
    }

    /// Erases the transient line, if one is shown, leaving the cursor at the start of its row.
    package static func clear() {
        shown.withLock { shown in
            guard shown else { return }
            try? FileDescriptor.standardError.writeAll(erase.utf8)
            shown = false
        }
    }
}
