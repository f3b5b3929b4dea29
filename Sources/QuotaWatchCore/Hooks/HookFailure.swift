/// A hook run that did not succeed: what the `hook_failed` event reports.
///
/// A run fails when the command exits with a status other than 0, is ended by a signal,
/// outlives its timeout (and is killed with its process group), or cannot be started at all.
package struct HookFailure: Sendable, Equatable {
    /// The hook's name from ``HookSpec/name``.
    package var hookName: String
    /// The kind of the event the run was for.
    package var eventKind: String
    /// The event's path, nil for a root-wide event.
    package var path: [UInt8]?
    /// The exit status, when the command exited by itself with one other than 0.
    package var exitStatus: Int32?
    /// The signal that ended the command; after a timeout, SIGTERM or SIGKILL sent by the runner.
    package var signal: Int32?
    /// Whether the run outlived its timeout and its process group was killed.
    package var timedOut: Bool
    /// Why the command could not be started (it was not found, or may not be executed, or its
    /// output file could not be opened); nil when it started.
    package var startError: String?
    /// The end of what the command wrote to stderr (at most 4 KiB).
    package var standardErrorTail: [UInt8]
    /// Events this hook has lost so far because its queue was full (the oldest go first).
    package var droppedEvents: Int

    package init(
        hookName: String, eventKind: String, path: [UInt8]?, exitStatus: Int32? = nil, signal: Int32? = nil,
        timedOut: Bool = false, startError: String? = nil, standardErrorTail: [UInt8] = [], droppedEvents: Int = 0
    ) {
        self.hookName = hookName
        self.eventKind = eventKind
        self.path = path
        self.exitStatus = exitStatus
        self.signal = signal
        self.timedOut = timedOut
        self.startError = startError
        self.standardErrorTail = standardErrorTail
        self.droppedEvents = droppedEvents
    }

    /// One line for a log: what happened, without the stderr tail.
    package var summary: String {
        var text = "hook '\(hookName)' for \(eventKind)"
        if let path { text += " on \(HumanText.name(path))" }
        if let startError {
            text += " could not start: \(startError)"
        } else if timedOut {
            text += " timed out and was killed with its process group"
            if let signal { text += " (\(HookFailure.signalName(signal)))" }
        } else if let signal {
            text += " was ended by \(HookFailure.signalName(signal))"
        } else if let exitStatus {
            text += " exited with status \(exitStatus)"
        }
        if droppedEvents > 0 { text += "; \(droppedEvents) events dropped so far" }
        return text
    }

    /// The usual name of a Linux signal number, or "signal N".
    package static func signalName(_ number: Int32) -> String {
        let names: [Int32: String] = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
            10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
        ]
        return names[number] ?? "signal \(number)"
    }
}
