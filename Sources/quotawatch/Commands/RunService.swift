import Foundation
import QuotaWatchEngine
import QuotaWatchSystem

/// `run` as a service: the log's level and form, and systemd's notify protocol when a
/// service manager listens.
enum RunService {
    static let logLevel = Option(
        "--log-level", value: "<level>",
        help: "Log messages at this level and more severe: debug, info (default), notice, warning or error.",
        .logLevel)
    static let declarations = [logLevel.spec]

    /// Sets the log's level, and its `<N>` priority prefixes when standard error is the
    /// journal. Call it first, so every message obeys it.
    static func configureLog(level: LogLevel?) {
        let journal = ServiceManager.standardErrorIsJournal(
            journalStream: ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        Log.configure(level: level ?? .info, journal: journal)
    }

    /// Adds the lifecycle log and, under a service manager, the notifier to the engine's observers.
    static func addObservers(to options: inout EngineOptions, notifier: ServiceNotifier?) {
        options.observers.append(LifecycleLog(root: options.rootDisplay))
        if let notifier { options.observers.append(notifier) }
    }
}

extension ValueGrammar where Value == LogLevel {
    static var logLevel: Self {
        Self(completing: .words(LogLevel.allCases.sorted(by: >).map(\.name))) { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            guard let level = LogLevel(name: text) else {
                throw InvalidValue(
                    message: "Invalid value '\(text)' for '\(option)': expected one of "
                        + LogLevel.allCases.sorted(by: >).map(\.name).joined(separator: ", "))
            }
            return level
        }
    }
}
