import QuotaWatchCore
import QuotaWatchSystem

/// Whether a control socket is this user's own daemon's, before a client believes its answer.
///
/// Another local user can make `/tmp/quotawatch-UID/` before the victim's daemon does and
/// listen there. A client trusts a socket only when:
///
/// - every directory from `/` down to the socket's own is a directory owned by this user or
///   root that no one else may write to, unless it is sticky (as `/tmp` is: others cannot
///   rename or remove what is ours in it); a symlink on the way must be owned by this user or
///   root too;
/// - the socket itself (not followed: a symlink is refused) is a socket owned by this user or
///   root, and not writable by group or others;
/// - once connected, the process that listens on it runs as this user or root
///   (`SO_PEERCRED`), which closes the gap between the checks and the connect.
///
/// A path that does not exist yet is left to the connect, which says no daemon is listening.
package enum SocketTrust {
    /// Why a path or a peer is not trusted: one clause, naming the path and what was found.
    package struct Refusal: Error, Hashable, Sendable {
        package var path: [UInt8]
        package var reason: String
        /// The user that owns what was refused (or the peer's), when that is the reason.
        package var ownerID: UInt32?
    }

    /// Users whose files and processes a client of user `me` trusts: itself and root.
    package static func isTrusted(_ ownerID: UInt32, me: UInt32) -> Bool { ownerID == me || ownerID == 0 }

    /// The checks before connecting to `socketPath`, for user `me`.
    package static func checkPath(_ socketPath: [UInt8], me: UInt32) throws(Refusal) {
        for directory in directories(holding: socketPath) {
            guard try checkDirectory(directory, me: me, allowSticky: true) else { return }
        }
        let socket: UnixSocket.Ownership
        do {
            socket = try UnixSocket.ownership(at: socketPath, followSymlinks: false)
        } catch {
            return  // missing or unreadable: the connect says which
        }
        switch socket.kind {
        case .socket: break
        case .symlink: throw Refusal(path: socketPath, reason: "it is a symlink, not a socket", ownerID: nil)
        case .directory, .other: return  // the connect fails with a clear error of its own
        }
        guard isTrusted(socket.ownerID, me: me) else {
            throw Refusal(path: socketPath, reason: ownedBy(socket.ownerID, me: me), ownerID: socket.ownerID)
        }
        guard socket.mode & 0o022 == 0 else {
            throw Refusal(
                path: socketPath, reason: "it is writable by group or others (mode \(octal(socket.mode)))",
                ownerID: nil)
        }
    }

    /// The check once connected: the listening process's user.
    package static func checkPeer(_ connection: FileDescriptor, socketPath: [UInt8], me: UInt32) throws(Refusal) {
        let peer: UInt32
        do {
            peer = try connection.peerUserID()
        } catch {
            throw Refusal(
                path: socketPath, reason: "the kernel would not say who listens on it (\(error))", ownerID: nil)
        }
        guard isTrusted(peer, me: me) else {
            throw Refusal(
                path: socketPath,
                reason: "the process listening on it runs as user \(peer), not as you (user \(me)) or root",
                ownerID: peer)
        }
    }

    /// Whether the directory at `path` may hold what user `me` trusts: false when it does not
    /// exist (nothing below it does either); a refusal when another user could change it.
    /// `allowSticky`: a sticky directory others may write to (`/tmp`) is fine, for sockets.
    package static func checkDirectory(_ path: [UInt8], me: UInt32, allowSticky: Bool) throws(Refusal) -> Bool {
        let link: UnixSocket.Ownership
        let found: UnixSocket.Ownership
        do {
            link = try UnixSocket.ownership(at: path, followSymlinks: false)
            found = link.kind == .symlink ? try UnixSocket.ownership(at: path, followSymlinks: true) : link
        } catch {
            return false
        }
        if link.kind == .symlink, !isTrusted(link.ownerID, me: me) {
            throw Refusal(path: path, reason: "it is a symlink " + ownedBy(link.ownerID, me: me), ownerID: link.ownerID)
        }
        guard found.kind == .directory else { return false }
        guard isTrusted(found.ownerID, me: me) else {
            throw Refusal(path: path, reason: ownedBy(found.ownerID, me: me), ownerID: found.ownerID)
        }
        let sticky = found.mode & 0o1000 != 0
        guard found.mode & 0o022 == 0 || (allowSticky && sticky) else {
            throw Refusal(
                path: path, reason: "it is writable by group or others (mode \(octal(found.mode)))", ownerID: nil)
        }
        return true
    }

    /// Why a directory of mode `mode` (owned by a trusted user) is no place for a daemon's
    /// socket or state: nil when no one else may write to it, or it is sticky (as `/tmp` is).
    package static func unsafeMode(_ mode: UInt32) -> String? {
        mode & 0o022 == 0 || mode & 0o1000 != 0
            ? nil : "it is writable by group or others (mode \(octal(mode)))"
    }

    /// `/`, `/a`, `/a/b` for `/a/b/c.sock`; `.`, `./d` for `d/c.sock`.
    package static func directories(holding path: [UInt8]) -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        var current: [UInt8] = path.first == slash ? [slash] : [UInt8(ascii: ".")]
        var result = [current]
        for component in path.split(separator: slash).dropLast() {
            current += (current == [slash] ? [] : [slash]) + component
            result.append(current)
        }
        return result
    }

    private static func ownedBy(_ owner: UInt32, me: UInt32) -> String {
        "it belongs to user \(owner), not to you (user \(me)) or root"
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension ControlClientError {
    /// A socket that must not be used at all, rather than one whose daemon failed to answer:
    /// `watch ROOT` says so instead of attaching or starting an engine beside it.
    package var forbidsAttaching: Bool {
        switch self {
        case .permissionDenied, .untrusted: true
        default: false
        }
    }
}
