import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchView

/// One running `watch`: whatever feeds ``feed`` (the in-process engine, or the threads that
/// ask a daemon), how to ask for a cleanup, and how to stop it all.
struct WatchSession {
    let feed: WatchFeed
    /// The control socket: the daemon's when attached, the in-process engine's own otherwise.
    let socketPath: [UInt8]
    /// Shown in the header when attached.
    let attachedTo: String?
    /// Whether the engine deletes (`--clean` without `--dry-run`); nil when attached (the
    /// daemon's options decide), for the `c` confirmation.
    let deletes: Bool?
    /// Asks everything feeding the session to stop; returns once it has, every thread joined.
    let stop: () -> Void

    /// Runs every cleaner now through the control socket (the `clean` command, as `clean-now`
    /// sends it), on a thread of its own; the outcome comes back as a notice, the run itself
    /// as a `cleanup` event in the log.
    func cleanNow(format: ByteFormat) {
        let feed = self.feed
        let socketPath = self.socketPath
        feed.notice("cleanup requested…")
        // Not joined: the request ends within its timeout, and the process may end first.
        _ = JoinableThread(name: "watch-clean-now") {
            do {
                let reply = try ControlClient.request(
                    socketPath: socketPath, ControlRequest(.clean(CleanupRunRequest(trigger: "manual"))),
                    timeout: .seconds(600))
                let summary = try? CleanupSummaryDocument.decode(reply)
                let removed = summary?.removed ?? 0
                let freed = summary?.freed ?? 0
                let dryRun = summary?.dryRun == true
                feed.notice(
                    "cleanup done: \(dryRun ? "would remove" : "removed") \(removed), "
                        + "\(dryRun ? "would free" : "freed") \(format.string(freed))")
            } catch {
                feed.notice("cleanup failed: \(error)")
            }
        }
    }
}

/// The local zone's offset from UTC now, in seconds, for event lines.
enum LocalTime {
    static var utcOffset: Int { TimeZone.current.secondsFromGMT(for: Date()) }
    static var millisecondsNow: Int64 { Saturating.int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
