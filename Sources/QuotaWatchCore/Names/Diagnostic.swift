/// The one way a message to a person starts, in every command and in the daemon's log: the
/// program's name, then the severity, then the message.
///
///     quotawatch: error: no quotawatch daemon is listening on /run/quotawatch/app-….sock; …
///     quotawatch: warning: cannot read directory 'Library/x': Permission denied; …
///     quotawatch: ready: watching /srv/app: 3002 files in 53 directories, 93.7 MB allocated
///
/// The daemon's lines have always named the program, as lines from several programs on one
/// stream (a pipeline, cron mail, the journal read without its columns) need; the commands
/// now start theirs the same way, so `grep '^quotawatch: error: '` finds every error of both.
/// A usage error's `Usage:` and `See …` lines follow its first line as they are.
///
/// A diagnostic is one line, whatever it quotes: the message is escaped as names are in every
/// human output (``HumanText/escaped(_:)``: a newline as `\x0a`, a tab as `\x09`, ESC as
/// `\x1b`), so a root, socket or file name quoted raw (or escaped only for JSON) cannot break
/// the line in two or act on a terminal. Text escaped already stays as it is.
package enum Diagnostic {
    package static let program = "quotawatch"

    /// `quotawatch: error: MESSAGE`.
    package static func error(_ message: String) -> String { "\(program): error: \(HumanText.escaped(message))" }
    /// `quotawatch: warning: MESSAGE`.
    package static func warning(_ message: String) -> String {
        "\(program): warning: \(HumanText.escaped(message))"
    }
    /// `quotawatch: MESSAGE`, for what is neither: progress, and what an operator would want to know.
    package static func note(_ message: String) -> String { "\(program): \(HumanText.escaped(message))" }
}
