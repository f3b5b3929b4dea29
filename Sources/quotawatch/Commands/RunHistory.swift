import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy

/// `run`'s history options: whether events and samples are recorded in SQLite, how often
/// sizes are sampled, and how much is kept.
enum RunHistory {
    static let options = [
        OptionSpec(
            name: "--history",
            help: "Record every event and size samples in history.sqlite in the state directory (the default)."),
        OptionSpec(
            name: "--no-history", help: "Record no history (as 'history: {enabled: false}' in the config)."),
        OptionSpec(
            name: "--history-sample", valueName: "<duration>",
            help: "Sample ROOT and every quota directory this often (default 5m); implies --history."),
        OptionSpec(
            name: "--history-keep", valueName: "<duration>",
            help: "Drop history older than this (default 30d); implies --history."),
        OptionSpec(
            name: "--history-max-size", valueName: "<size>",
            help: "Drop the oldest history beyond this size (default 100MB); implies --history."),
    ]

    /// Adds the recorder to `options.observers` unless `--no-history` or the config's
    /// `history: {enabled: false}` (already in `options.policy`) turn it off. A state directory
    /// that cannot be named is said once, and the daemon watches on without history.
    static func apply(
        _ arguments: ParsedArguments, absoluteRoot: [UInt8], to options: inout EngineOptions,
        command: String = "run"
    )
        throws(UsageError)
    {
        guard
            let settings = try settings(
                arguments, config: options.policy.history, absoluteRoot: absoluteRoot, command: command)
        else { return }
        options.observers.append(HistoryRecorder(settings: settings))
    }

    /// The config's values, with the options' merged over them.
    static func settings(
        _ arguments: ParsedArguments, config: HistoryConfig, absoluteRoot: [UInt8], command: String = "run"
    )
        throws(UsageError) -> HistorySettings?
    {
        let tuned = ["--history-sample", "--history-keep", "--history-max-size"].filter { arguments.values[$0] != nil }
        if arguments.has("--no-history") {
            if let given = (arguments.has("--history") ? ["--history"] : []).first ?? tuned.first {
                throw UsageError(message: "--no-history turns history off; \(given) is for history", command: command)
            }
            return nil
        }
        // On by default: only the config's `enabled: false` turns it off, and an option asks again.
        guard config.enabled || arguments.has("--history") || !tuned.isEmpty else { return nil }
        guard
            let directory = StateDirectory.forRoot(absoluteRoot, base: RunCleanup.stateDirectoryBase(arguments))
        else {
            Log.warning(
                "no history is recorded: no state directory can be named (no STATE_DIRECTORY or HOME); "
                    + "give --state-dir DIR, or --no-history to say so")
            return nil
        }
        var settings = HistorySettings(stateDirectory: directory, root: EscapedName.string(absoluteRoot))
        if let every = config.sampleEvery { settings.sampleEvery = every }
        if let keep = config.keep { settings.retention.keep = keep }
        if let size = config.maximumBytes { settings.retention.maximumBytes = size }
        if let every = try arguments.duration("--history-sample", in: ValueRanges.historySample, command: command) {
            settings.sampleEvery = every
        }
        if let keep = try arguments.duration("--history-keep", in: ValueRanges.historyKeep, command: command) {
            settings.retention.keep = keep
        }
        if let size = try arguments.size(
            "--history-max-size", in: ValueRanges.historyMaximumBytes, command: command)
        {
            settings.retention.maximumBytes = size
        }
        return settings
    }
}
