import CSystemd
import Glibc
import QuotaWatchCore

/// The service manager's side of a `Type=notify` service, through libsystemd: what the
/// daemon tells systemd, and what systemd told it through its environment.
///
/// libsystemd reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` itself, so these are
/// the documented calls rather than a second reading of the protocol. `sd_notify` sends on a
/// blocking datagram socket: call it from a thread that may wait, never the engine's.
package enum ServiceManager {
    /// Sends `state` (newline-separated `KEY=VALUE` assignments such as `READY=1`) to the
    /// service manager. False when no manager listens (`NOTIFY_SOCKET` unset).
    ///
    /// The corresponding C function is `sd_notify`.
    package static func notify(_ state: String) throws(Errno) -> Bool {
        let result = unsafe state.withCString { text in unsafe sd_notify(0, text) }
        guard result >= 0 else { throw Errno(rawValue: -result) }
        return result > 0
    }

    /// The watchdog period systemd expects a `WATCHDOG=1` within, or nil when it watches
    /// nothing (no `WatchdogSec=`, or the variables name another process).
    ///
    /// The corresponding C function is `sd_watchdog_enabled`.
    package static func watchdogPeriod() throws(Errno) -> Duration? {
        var microseconds: UInt64 = 0
        let result = unsafe sd_watchdog_enabled(0, &microseconds)
        guard result >= 0 else { throw Errno(rawValue: -result) }
        guard result > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// `CLOCK_MONOTONIC` in microseconds, as `MONOTONIC_USEC=` carries it with `RELOADING=1`.
    ///
    /// The corresponding C function is `clock_gettime` with `CLOCK_MONOTONIC`.
    package static var monotonicMicroseconds: UInt64 {
        var time = timespec()
        guard unsafe system_clock_gettime(CLOCK_MONOTONIC, &time) == 0 else { return 0 }
        return Saturating.sum(
            Saturating.product(UInt64(max(time.tv_sec, 0)), 1_000_000), UInt64(max(time.tv_nsec, 0)) / 1000)
    }

    /// Whether standard error is the stream systemd's `JOURNAL_STREAM` names
    /// (`device:inode`), so that a `<N>` prefix on a line sets its priority in the journal.
    package static func standardErrorIsJournal(journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let status = try? FileDescriptor.standardError.status() else { return false }
        return status.device == device && status.inode == inode
    }
}
