import Foundation
import QuotaWatchEngine
import QuotaWatchSystem

/// Where QuotaWatch keeps what must outlive a run: the audit log of deletions and the last
/// app version seen.
package enum StateDirectory {
    /// The state directory of the daemon watching `absoluteRoot`, or nil when none can be
    /// named (no `HOME`):
    ///
    /// - `$STATE_DIRECTORY` (systemd's `StateDirectory=`; the first of a colon-separated list);
    /// - as root (uid 0): `/var/lib/quotawatch`;
    /// - otherwise `$XDG_STATE_HOME/quotawatch` when that is an absolute path, else
    ///   `$HOME/.local/state/quotawatch`;
    ///
    /// then one subdirectory per root, named as the root's socket is (``SocketPath/socketName(forRoot:)``).
    package static func forRoot(
        _ absoluteRoot: [UInt8], environment: [String: String], userID: UInt32
    ) -> [UInt8]? {
        guard let base = base(environment: environment, userID: userID) else { return nil }
        return base + [UInt8(ascii: "/")] + SocketPath.socketName(forRoot: absoluteRoot)
    }

    /// The state directory for `absoluteRoot` as this process sees it; `base` (`run
    /// --state-dir`, `history --state-dir`) stands for `$STATE_DIRECTORY` when given.
    package static func forRoot(_ absoluteRoot: [UInt8], base: [UInt8]? = nil) -> [UInt8]? {
        var environment = ProcessInfo.processInfo.environment
        if let base { environment["STATE_DIRECTORY"] = String(decoding: base, as: UTF8.self) }
        return forRoot(absoluteRoot, environment: environment, userID: ProcessIdentity.effectiveUserID)
    }

    static func base(environment: [String: String], userID: UInt32) -> [UInt8]? {
        if let given = environment["STATE_DIRECTORY"]?.split(separator: ":").first, given.hasPrefix("/") {
            return Array(given.utf8)
        }
        if userID == 0 { return Array("/var/lib/quotawatch".utf8) }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return Array(state.utf8) + Array("/quotawatch".utf8)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return Array(home.utf8) + Array("/.local/state/quotawatch".utf8)
        }
        return nil
    }
}
