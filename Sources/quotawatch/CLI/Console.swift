import QuotaWatchCore
import QuotaWatchSystem

/// Standard output and error without the C globals `stdout`/`stderr`, which strict
/// concurrency rejects. Every write goes straight to the descriptor, so a pipe sees each
/// line as soon as it is written.
///
/// Human text is the last place a name could reach the terminal raw, so ``out(_:)`` and
/// ``error(_:)`` escape every character a terminal acts on (``HumanText/forOutput(_:)``) but the
/// newlines and tabs of the layout; names are escaped whole (``HumanText/name(_:)``) before
/// they get here. JSON goes through ``json(_:)``, which keeps it valid JSON.
enum Console {
    static func out(_ text: String) { write(HumanText.forOutput(text), to: .standardOutput) }
    static func error(_ text: String) { write(HumanText.forOutput(text), to: .standardError) }
    /// An error for a person: `quotawatch: error: MESSAGE` and a newline (``Diagnostic``), the
    /// first line of every failure a command reports, as the daemon's log starts its errors.
    static func failure(_ message: String) { error(Diagnostic.error(message) + "\n") }
    /// `quotawatch: warning: MESSAGE` and a newline.
    static func warning(_ message: String) { error(Diagnostic.warning(message) + "\n") }
    /// A JSON document or JSON lines, with what JSON encoders leave raw (DEL, C1, direction
    /// overrides) as `\uXXXX` escapes.
    static func json(_ text: String) { write(HumanText.jsonForTerminal(text), to: .standardOutput) }

    static var errorIsTerminal: Bool { FileDescriptor.standardError.isTerminal }

    private static func write(_ text: String, to descriptor: FileDescriptor) {
        // Never appended to a progress line: stdout and stderr share the terminal.
        TransientLine.clear()
        // A closed pipe or full disk on our own output has nowhere better to be reported.
        try? descriptor.writeAll(text.utf8)
    }
}

/// How a run of the program ends.
struct ExitStatus: Equatable, Sendable {
    var rawValue: Int32
    static let success = ExitStatus(rawValue: 0)
    /// Something went wrong at run time, or the scan was incomplete.
    static let failure = ExitStatus(rawValue: 1)
    /// The command line or ROOT was wrong (sysexits' EX_USAGE).
    static let usage = ExitStatus(rawValue: 64)
}
