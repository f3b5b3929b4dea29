import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

extension WatchSession {
    /// `d`, confirmed: removes `path` whole as `clean --path` does, through the control socket
    /// (the daemon's when attached, the in-process engine's otherwise), so through the
    /// cleaners' deleter and audit log, on the cleanup runner. On a thread of its own; the
    /// outcome comes back as a notice, and each name kept as a line of the log with its reason.
    func delete(_ path: [UInt8], format: ByteFormat) {
        let feed = self.feed
        let socketPath = self.socketPath
        let shown = HumanText.name(path)
        feed.notice("deleting ./\(shown)…")
        // Not joined: the request ends within its timeout, and the process may end first.
        _ = JoinableThread(name: "watch-delete") {
            var selection = CleanSelection()
            selection.paths = [path]
            do {
                let reply = try ControlClient.request(
                    socketPath: socketPath,
                    ControlRequest(.cleanDelete(CleanDeleteRequest(selection: selection, dryRun: false))),
                    timeout: .seconds(600))
                let report = try CleanDeletionReport.decode(reply)
                for kept in report.skipped {
                    feed.log("kept ./\(HumanText.name(kept.path)): \(kept.reason)", warns: true)
                }
                feed.notice(Self.deletionNotice(shown, report, format: format))
            } catch {
                feed.notice("delete ./\(shown) failed: \(error)")
            }
        }
    }

    /// One line for the footer, short enough for 80 columns: what went, what was kept and why
    /// (the first reason; the log has each).
    static func deletionNotice(_ shown: String, _ report: CleanDeletionReport, format: ByteFormat) -> String {
        var text =
            report.removed.isEmpty
            ? "./\(shown): nothing deleted"
            : "deleted ./\(shown): \(report.removed.count) name(s), freed \(format.string(report.freedBytes))"
        if let first = report.skipped.first { text += "; kept \(report.skipped.count): \(first.reason)" }
        if let error = report.error { text += "; error: \(error)" }
        return text
    }
}
