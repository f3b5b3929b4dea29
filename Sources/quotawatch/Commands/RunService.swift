import Foundation
import QuotaWatchEngine
import QuotaWatchSystem

/// `run` as a service: the log's level and form, and systemd's notify protocol when a
/// service manager listens.
enum RunService {
    static let options = [
        OptionSpec(
            name: "--log-level", valueName: "<level>",
            help: "Log messages at this level and more severe: debug, info (default), notice, warning or error.")
    ]

    /// Sets the log's level from `--log-level`, and its `<N>` priority prefixes when standard
    /// error is the journal. Call it first, so every message obeys it.
    static func configureLog(_ arguments: ParsedArguments, command: String) throws(UsageError) {
        var level = LogLevel.info
        if let text = arguments.values["--log-level"]?.text {
            guard let named = LogLevel(name: text) else {
                throw UsageError(
                    message: "Invalid value '\(text)' for '--log-level': expected one of "
                        + LogLevel.allCases.sorted(by: >).map(\.name).joined(separator: ", "),
                    command: command)
            }
            level = named
        }
        let journal = ServiceManager.standardErrorIsJournal(
            journalStream: ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        Log.configure(level: level, journal: journal)
    }

    /// Adds the lifecycle log and, under a service manager, the notifier to the engine's observers.
    static func addObservers(to options: inout EngineOptions) {
        options.observers.append(LifecycleLog(root: options.rootDisplay))
        if let notifier = ServiceNotifier.forServiceManager(environment: ProcessInfo.processInfo.environment) {
            options.observers.append(notifier)
        }
    }
}
