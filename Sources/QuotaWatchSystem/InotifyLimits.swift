import CInotifyTools

/// The kernel's inotify limits for this user, as `/proc/sys/fs/inotify` states them.
public struct InotifyLimits: Sendable, Equatable {
    public var maxUserWatches: Int
    public var maxQueuedEvents: Int
    public var maxUserInstances: Int

    /// Reads the limits through libinotifytools, which knows where each one lives.
    public static func current() -> InotifyLimits {
        InotifyLimits(
            maxUserWatches: Int(inotifytools_get_max_user_watches()),
            maxQueuedEvents: Int(inotifytools_get_max_queued_events()),
            maxUserInstances: Int(inotifytools_get_max_user_instances()))
    }
}
