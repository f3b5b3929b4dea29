import QuotaWatchEngine
import QuotaWatchPolicy

/// How the recorder records.
package struct HistorySettings: Sendable {
    /// The root's state directory: the database goes there as `history.sqlite`, next to the
    /// audit log it imports.
    package var stateDirectory: [UInt8]
    /// ROOT, absolute and escaped as paths are: the `root` field of every event line recorded,
    /// as the event stream writes it.
    package var root: String
    /// A sample of ROOT and every quota directory this often.
    package var sampleEvery: Duration = HistoryConfig.defaultSampleEvery
    package var retention = HistoryRetention()
    /// Items waiting for the database, at most; beyond it new ones are dropped and counted.
    package var capacity = 50_000
    /// The first wait before trying an unavailable database again; it doubles up to a minute.
    package var retryAfter: Duration = .seconds(2)
    /// Retention and a fresh look at the audit log this often (and at start).
    package var housekeepingEvery: Duration = .seconds(600)
    /// How long a write waits for another connection's lock before the batch is retried later.
    package var busyTimeoutMilliseconds: Int32 = 1000

    package init(stateDirectory: [UInt8], root: String) {
        self.stateDirectory = stateDirectory
        self.root = root
    }

    package var databasePath: [UInt8] { stateDirectory + Array("/\(HistoryStore.fileName)".utf8) }
}

/// Where the recorder's warnings go: the daemon's log, as its other warnings, so that
/// `--log-level` and the journal's priorities apply and `watch` shows them on its screen
/// instead of writing across it.
package enum HistoryReport {
    @Sendable package static func log(_ message: String) {
        Log.warning("history: \(message)")
    }
}
