import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy

/// `run`'s history options: whether events and samples are recorded in SQLite, how often
/// sizes are sampled, and how much is kept.
enum RunHistory {
    static let history = Flag(
        "--history",
        help: "Record every event and size samples in history.sqlite in the state directory (the default).")
    static let noHistory = Flag(
        "--no-history", help: "Record no history (as 'history: {enabled: false}' in the config).")
    static let sample = Option(
        "--history-sample", value: "<duration>",
        help: "Sample ROOT and every quota directory this often (default 5m); implies --history.",
        .timeSpan(in: ValueRanges.historySample))
    static let keep = Option(
        "--history-keep", value: "<duration>", help: "Drop history older than this (default 30d); implies --history.",
        .timeSpan(in: ValueRanges.historyKeep))
    static let maximumSize = Option(
        "--history-max-size", value: "<size>",
        help: "Drop the oldest history beyond this size (default 100MB); implies --history.",
        .byteCount(in: ValueRanges.historyMaximumBytes))
    static let declarations = [history.spec, noHistory.spec, sample.spec, keep.spec, maximumSize.spec]

    struct Options: Sendable {
        var history: Bool
        var noHistory: Bool
        var sampleEvery: Duration?
        var keep: Duration?
        var maximumBytes: UInt64?
        /// The tuning options given, in order: each implies --history.
        var tuned: [String]

        init(_ arguments: ParsedArguments) throws(UsageError) {
            history = arguments[RunHistory.history]
            noHistory = arguments[RunHistory.noHistory]
            sampleEvery = try arguments.value(RunHistory.sample)
            keep = try arguments.value(RunHistory.keep)
            maximumBytes = try arguments.value(RunHistory.maximumSize)
            tuned = arguments.given(among: [RunHistory.sample.spec, RunHistory.keep.spec, RunHistory.maximumSize.spec])
        }

        func validate() throws(ValidationError) {
            if noHistory, let given = history ? RunHistory.history.spec.name : tuned.first {
                throw ValidationError("--no-history turns history off; \(given) is for history")
            }
        }

        /// The config's values, with the options' merged over them; nil when history is off:
        /// `--no-history`, or the config's `enabled: false` and no option asking again. A state
        /// directory that cannot be named is said once, and the daemon watches on without history.
        func settings(config: HistoryConfig, absoluteRoot: [UInt8], stateDirectoryBase: [UInt8]?) -> HistorySettings? {
            if noHistory { return nil }
            guard config.enabled || history || !tuned.isEmpty else { return nil }
            guard let directory = StateDirectory.forRoot(absoluteRoot, base: stateDirectoryBase) else {
                Log.warning(
                    "no history is recorded: no state directory can be named (no STATE_DIRECTORY or HOME); "
                        + "give --state-dir DIR, or --no-history to say so")
                return nil
            }
            var settings = HistorySettings(stateDirectory: directory, root: EscapedName.string(absoluteRoot))
            if let every = config.sampleEvery { settings.sampleEvery = every }
            if let keep = config.keep { settings.retention.keep = keep }
            if let size = config.maximumBytes { settings.retention.maximumBytes = size }
            if let sampleEvery { settings.sampleEvery = sampleEvery }
            if let keep { settings.retention.keep = keep }
            if let maximumBytes { settings.retention.maximumBytes = maximumBytes }
            return settings
        }
    }
}
