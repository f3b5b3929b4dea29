import QuotaWatchSystem
import Synchronization

/// Running out of file descriptors (EMFILE for the process, ENFILE for the system), said
/// once a minute at most, with the limit and the way out: whatever failed is retried, and
/// whatever it leaves inexact is reported as degraded by the caller.
package enum DescriptorShortage {
    private static let lastReport = Mutex<ContinuousClock.Instant?>(nil)

    /// Whether `error` is running out of descriptors.
    package static func isShortage(_ error: Errno) -> Bool {
        error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem
    }

    /// The sentence that names the limit and how to raise it.
    package static func message(_ action: String, limit: UInt64?) -> String {
        let limitText = limit.map { "the limit on open files is \($0)" } ?? "the limit on open files was reached"
        return "out of file descriptors while \(action) (\(limitText)); raise it with LimitNOFILE= in the "
            + "service unit or 'ulimit -n' before starting quotawatch; retrying as descriptors free up"
    }

    /// Descriptors that must be free once the daemon's own are open, or it does not start:
    /// SQLite's history database (three), and a directory for the crawl; a control connection
    /// has a descriptor of its own in reserve (``SpareDescriptor``).
    package static let startupReserve = 4

    /// Why the daemon cannot start with the descriptors now open, nil when it can: fewer than
    /// ``startupReserve`` left under the limit.
    package static func startupShortfall() -> String? {
        // Descriptors are handed out lowest first, so free top numbers mean as many are left:
        // counting up to the limit (20 000 calls here) made each of 1 000 roots of one daemon
        // spend milliseconds at its start.
        if ResourceLimits.highestDescriptorsFree(startupReserve) { return nil }
        guard let (open, limit) = ResourceLimits.openDescriptorCount() else { return nil }
        let needed = UInt64(open + startupReserve)
        guard limit < needed else { return nil }
        return startupMessage(limit: limit, needed: needed)
    }

    /// The sentence for a start that ran out of descriptors: the limit, and how to raise it.
    package static func startupMessage(limit: UInt64?, needed: UInt64? = nil) -> String {
        let limitText = limit.map { "the limit on open files is \($0)" } ?? "the limit on open files was reached"
        let neededText = needed.map { ", and quotawatch needs at least \($0)" } ?? ""
        return "out of file descriptors while starting (\(limitText)\(neededText)); raise it with LimitNOFILE= in "
            + "the service unit or 'ulimit -n' before starting quotawatch"
    }

    /// For a step of the start that failed with `error`: the reason to give, which names the
    /// limit when descriptors ran out.
    package static func startupReason(_ error: Errno) -> String {
        isShortage(error) ? startupMessage(limit: ResourceLimits.openFileLimit()) : "\(error)"
    }

    /// Logs ``message(_:limit:)`` as a warning unless one was logged in the last minute.
    package static func report(_ action: String, limit: UInt64?) {
        let now = ContinuousClock.now
        let due = lastReport.withLock { last in
            if let last, now - last < .seconds(60) { return false }
            last = now
            return true
        }
        if due { Log.warning(message(action, limit: limit)) }
    }
}
