import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// A state directory that another user owns (or may write to) is refused: they could plant
/// an audit log or a history database for the daemon, or `history` and `clean`, to trust.
package struct UntrustedStateDirectory: Error, Hashable, Sendable, CustomStringConvertible {
    package var directory: [UInt8]
    package var refusal: SocketTrust.Refusal

    package var description: String {
        let remover = refusal.ownerID.map { " (as root or user \($0))" } ?? ""
        let which = refusal.path == directory ? "" : " (\(HumanText.name(refusal.path)), which holds it)"
        return "refusing the state directory \(HumanText.name(directory))\(which): \(refusal.reason), "
            + "so another user could change what quotawatch reads there; remove it\(remover), "
            + "or set STATE_DIRECTORY to a directory of your own"
    }
}

extension StateDirectory {
    /// Checks the state directory `directory` and the one holding it, where they exist: each
    /// must be owned by this user or root, and not writable by group or others.
    package static func checkTrusted(_ directory: [UInt8]) throws(UntrustedStateDirectory) {
        let me = ProcessIdentity.effectiveUserID
        var parent = directory
        while parent.count > 1, parent.last == UInt8(ascii: "/") { parent.removeLast() }
        if let slash = parent.lastIndex(of: UInt8(ascii: "/")) {
            parent = slash == 0 ? [UInt8(ascii: "/")] : Array(parent[..<slash])
        } else {
            parent = Array(".".utf8)
        }
        for path in [parent, directory] {
            do {
                _ = try SocketTrust.checkDirectory(path, me: me, allowSticky: path == parent)
            } catch {
                throw UntrustedStateDirectory(directory: directory, refusal: error)
            }
        }
    }
}
