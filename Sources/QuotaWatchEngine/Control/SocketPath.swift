import Foundation
import QuotaWatchSystem

/// Where the daemon for a root listens unless `--socket` says otherwise.
package enum SocketPath {
    /// The default socket of the daemon watching `absoluteRoot`:
    ///
    /// - root (uid 0): `/run/quotawatch/NAME.sock`, whatever `XDG_RUNTIME_DIR` says, so that a
    ///   root login shell (which has `/run/user/0`) finds the system service (which has none);
    /// - otherwise `$XDG_RUNTIME_DIR/quotawatch/NAME.sock` when that variable is an absolute path;
    /// - otherwise `/tmp/quotawatch-UID/NAME.sock`.
    ///
    /// NAME is the root's last component, with every byte outside `[A-Za-z0-9._-]` replaced by
    /// `_` and cut to 40 bytes (`root` for `/`), then `-` and the 16 hex digits of the 64-bit
    /// FNV-1a hash of the whole root path, so two roots that share a last component still get
    /// sockets of their own. Trailing slashes are ignored: `/data/` and `/data` share a socket.
    package static func defaultPath(
        forRoot absoluteRoot: [UInt8], environment: [String: String], userID: UInt32
    ) -> [UInt8] {
        let directory: [UInt8]
        if userID == 0 {
            directory = Array("/run/quotawatch".utf8)
        } else if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            directory = withoutTrailingSlashes(Array(runtime.utf8)) + Array("/quotawatch".utf8)
        } else {
            directory = Array("/tmp/quotawatch-\(userID)".utf8)
        }
        return directory + [UInt8(ascii: "/")] + socketName(forRoot: absoluteRoot) + Array(".sock".utf8)
    }

    /// The default socket for `absoluteRoot` as this process sees it: its environment and
    /// effective user.
    package static func defaultPath(forRoot absoluteRoot: [UInt8]) -> [UInt8] {
        defaultPath(
            forRoot: absoluteRoot, environment: ProcessInfo.processInfo.environment,
            userID: ProcessIdentity.effectiveUserID)
    }

    /// NAME in ``defaultPath(forRoot:environment:userID:)``, without the `.sock`.
    package static func socketName(forRoot absoluteRoot: [UInt8]) -> [UInt8] {
        let root = withoutTrailingSlashes(absoluteRoot)
        let lastComponent = root.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
        var label = lastComponent.prefix(maximumLabelLength).map { isPortable($0) ? $0 : UInt8(ascii: "_") }
        if label.isEmpty { label = Array("root".utf8) }
        return label + [UInt8(ascii: "-")] + hexDigits(fnv1a64(root))
    }

    /// The longest part of the socket's name taken from the root's last component.
    package static let maximumLabelLength = 40

    /// The 64-bit FNV-1a hash: tiny, stable across runs and versions, and good enough to keep
    /// the sockets of different roots apart.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hexDigits(_ value: UInt64) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<16).reversed().map { digits[Int((value >> (UInt64($0) * 4)) & 0xf)] }
    }

    private static func isPortable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// `path` without trailing slashes, except that `/` stays `/`.
    private static func withoutTrailingSlashes(_ path: [UInt8]) -> [UInt8] {
        var trimmed = path[...]
        while trimmed.count > 1, trimmed.last == UInt8(ascii: "/") { trimmed = trimmed.dropLast() }
        return Array(trimmed)
    }
}
