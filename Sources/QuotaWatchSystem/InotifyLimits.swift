import CInotifyTools
import Foundation

/// The kernel's inotify limits for this user, as `/proc/sys/fs/inotify` states them.
package struct InotifyLimits: Sendable, Equatable {
    package var maxUserWatches: Int
    package var maxQueuedEvents: Int
    package var maxUserInstances: Int

    /// The per-user-namespace limit (`/proc/sys/user/max_inotify_watches`), which can be
    /// lower than the sysctl inside a container or `unshare --user`.
    package var userNamespaceMaxWatches: Int?

    /// The limit in force: the lower of the two.
    package var effectiveMaxUserWatches: Int { min(maxUserWatches, userNamespaceMaxWatches ?? maxUserWatches) }

    /// Reads the limits through libinotifytools, which knows where each one lives, and the
    /// namespace's own limit from procfs.
    package static func current() -> InotifyLimits {
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
