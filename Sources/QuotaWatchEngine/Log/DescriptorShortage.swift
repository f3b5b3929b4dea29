import QuotaWatchSystem
import Synchronization

/// Running out of file descriptors (EMFILE for the process, ENFILE for the system), said
/// once a minute at most, with the limit and the way out: whatever failed is retried, and
/// whatever it leaves inexact is reported as degraded by the caller.
public enum DescriptorShortage {
    private static let lastReport = Mutex<ContinuousClock.Instant?>(nil)

    /// Whether `error` is running out of descriptors.
    public static func isShortage(_ error: Errno) -> Bool {
        error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem
    }

    /// The sentence that names the limit and how to raise it.
    public static func message(_ action: String, limit: UInt64?) -> String {
        let limitText = limit.map { "the limit on open files is \($0)" } ?? "the limit on open files was reached"
        return "out of file descriptors while \(action) (\(limitText)); raise it with LimitNOFILE= in the "
            + "service unit or 'ulimit -n' before starting quotawatch; retrying as descriptors free up"
    }

    /// Logs ``message(_:limit:)`` as a warning unless one was logged in the last minute.
    public static func report(_ action: String, limit: UInt64?) {
        let now = ContinuousClock.now
        let due = lastReport.withLock { last in
            if let last, now - last < .seconds(60) { return false }
            last = now
            return true
        }
        if due { Log.warning(message(action, limit: limit)) }
    }
}
