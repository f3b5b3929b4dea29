import CInotifyTools
import Foundation

/// The kernel's inotify limits for this user, as `/proc/sys/fs/inotify` states them.
public struct InotifyLimits: Sendable, Equatable {
    public var maxUserWatches: Int
    public var maxQueuedEvents: Int
    public var maxUserInstances: Int

    /// The per-user-namespace limit (`/proc/sys/user/max_inotify_watches`), which can be
    /// lower than the sysctl inside a container or `unshare --user`.
    public var userNamespaceMaxWatches: Int?

    /// The limit in force: the lower of the two.
    public var effectiveMaxUserWatches: Int { min(maxUserWatches, userNamespaceMaxWatches ?? maxUserWatches) }

    /// Reads the limits through libinotifytools, which knows where each one lives, and the
    /// namespace's own limit from procfs.
    public static func current() -> InotifyLimits {
        let namespace = (try? SmallFile.read("/proc/sys/user/max_inotify_watches")).flatMap {
            Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return InotifyLimits(
            maxUserWatches: Int(inotifytools_get_max_user_watches()),
            maxQueuedEvents: Int(inotifytools_get_max_queued_events()),
            maxUserInstances: Int(inotifytools_get_max_user_instances()),
            userNamespaceMaxWatches: namespace)
    }
}

/// inotifywait's names for event bits ("CREATE,ISDIR"), from libinotifytools.
public enum InotifyEventNames {
    /// libinotifytools formats into a static buffer: call this from one thread only (the
    /// engine's), as `--trace` does.
    public static func describe(_ mask: UInt32) -> String {
        guard let text = unsafe inotifytools_event_to_str(Int32(bitPattern: mask)) else {
            return "0x\(String(mask, radix: 16))"
        }
        return unsafe String(cString: text)
    }
}
