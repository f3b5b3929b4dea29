import QuotaWatchEngine
import QuotaWatchPolicy

/// How the recorder records.
public struct HistorySettings: Sendable {
    /// The root's state directory: the database goes there as `history.sqlite`, next to the
    /// audit log it imports.
    public var stateDirectory: [UInt8]
    /// ROOT, absolute and escaped as paths are: the `root` field of every event line recorded,
    /// as the event stream writes it.
    public var root: String
    /// A sample of ROOT and every quota directory this often.
    public var sampleEvery: Duration = HistoryConfig.defaultSampleEvery
    public var retention = HistoryRetention()
    /// Items waiting for the database, at most; beyond it new ones are dropped and counted.
    public var capacity = 50_000
    /// The first wait before trying an unavailable database again; it doubles up to a minute.
    public var retryAfter: Duration = .seconds(2)
    /// Retention and a fresh look at the audit log this often (and at start).
    public var housekeepingEvery: Duration = .seconds(600)
    /// How long a write waits for another connection's lock before the batch is retried later.
    public var busyTimeoutMilliseconds: Int32 = 1000

    public init(stateDirectory: [UInt8], root: String) {
        self.stateDirectory = stateDirectory
        self.root = root
    }

    public var databasePath: [UInt8] { stateDirectory + Array("/\(HistoryStore.fileName)".utf8) }
}

/// Where the recorder's warnings go: the daemon's log, as its other warnings, so that
/// `--log-level` and the journal's priorities apply and `watch` shows them on its screen
/// instead of writing across it.
public enum HistoryReport {
    @Sendable public static func log(_ message: String) {
        Log.warning("history: \(message)")
    }
}
