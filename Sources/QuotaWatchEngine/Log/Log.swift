import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The daemon's log: one line per message on standard error, each with a level.
///
/// On a terminal or a file a line reads as it always has (`quotawatch: warning: …`). When
/// standard error is the journal's stream (systemd sets `JOURNAL_STREAM` to its device and
/// inode), each line starts with sd-daemon's `<N>` priority prefix, which journald strips and
/// keeps as the entry's priority, so `journalctl -p warning` finds the warnings. A message is
/// written with one `write`, so lines from different threads never interleave.
package enum Log {
    private static let threshold = Atomic<Int>(LogLevel.info.rawValue)
    private static let prefixesPriority = Atomic<Bool>(false)
    /// Where messages go instead of standard error while a full-screen view owns the terminal.
    private static let redirection = Mutex<(@Sendable (LogLevel, String) -> Void)?>(nil)

    /// Messages less severe than `level` are dropped; `journal`: prefix lines with `<N>`.
    package static func configure(level: LogLevel, journal: Bool) {
        threshold.store(level.rawValue, ordering: .relaxed)
        prefixesPriority.store(journal, ordering: .relaxed)
    }

    /// Whether a message at `level` is written; check it before building a costly message.
    package static func isEnabled(_ level: LogLevel) -> Bool {
        level.rawValue <= threshold.load(ordering: .relaxed)
    }

    /// Writes `text` (one or more lines, without the final newline) at `level`, as it is.
    package static func write(_ level: LogLevel, _ text: String) {
        guard isEnabled(level) else { return }
        emit(level, text)
    }

    /// `quotawatch: error: MESSAGE`.
    package static func error(_ message: String) { write(.error, Diagnostic.error(aboutSubject(message))) }
    /// `quotawatch: warning: MESSAGE`.
    package static func warning(_ message: String) { write(.warning, Diagnostic.warning(aboutSubject(message))) }
    /// `quotawatch: MESSAGE`, for what an operator would want to know happened.
    package static func notice(_ message: String) { write(.notice, Diagnostic.note(aboutSubject(message))) }
    /// `quotawatch: MESSAGE`, for the daemon's ordinary progress.
    package static func info(_ message: String) { write(.info, Diagnostic.note(aboutSubject(message))) }
    /// `quotawatch: MESSAGE` at `level`, without the level's word: a warning that reads as a
    /// report (`SIGHUP: the config was not reloaded…`).
    package static func plain(_ level: LogLevel, _ message: String) {
        write(level, Diagnostic.note(aboutSubject(message)))
    }
    /// `quotawatch: debug: MESSAGE`.
    package static func debug(_ message: @autoclosure () -> String) {
        guard isEnabled(.debug) else { return }
        emit(.debug, Diagnostic.note("debug: " + aboutSubject(message())))
    }

    /// `ROOT: MESSAGE` on a thread serving one of several roots (``ThreadSubject``), so that
    /// in a daemon serving `/home/*` a cleaner's or a hook's warning says whose it is. A line
    /// that names its root already (`ready: watching ROOT: …`, the watch limit's warning) is
    /// left as a one-root daemon writes it.
    private static func aboutSubject(_ message: String) -> String {
        guard let subject = ThreadSubject.current, !message.contains(subject) else { return message }
        return subject + ": " + message
    }

    /// Sends every message to `sink` instead of standard error, until called again with nil:
    /// `watch` shows them on its screen, which a line written to the terminal would scramble.
    package static func redirect(to sink: (@Sendable (LogLevel, String) -> Void)?) {
        redirection.withLock { $0 = sink }
    }

    /// Output the user asked for by name (`--trace`): never filtered by the level, and in the
    /// journal at `info`.
    package static func requested(_ text: String) { emit(.info, text) }

    private static func emit(_ level: LogLevel, _ text: String) {
        // The last guard against a name that reaches a message raw: nothing a terminal (or a
        // journal viewer) would act on gets through, but the message's own line breaks.
        var lines = HumanText.forOutput(text)
        if lines.hasSuffix("\n") { lines.removeLast() }
        if let sink = redirection.withLock({ $0 }) {
            sink(level, lines)
            return
        }
        if prefixesPriority.load(ordering: .relaxed) {
            let prefix = "<\(level.rawValue)>"
            lines = lines.split(separator: "\n", omittingEmptySubsequences: false)
                .map { prefix + $0 }.joined(separator: "\n")
        }
        // Never appended to a progress line (the crawl's, on a terminal).
        TransientLine.clear()
        // A closed or full standard error has nowhere better to be reported.
        try? FileDescriptor.standardError.writeAll((lines + "\n").utf8)
    }
}
