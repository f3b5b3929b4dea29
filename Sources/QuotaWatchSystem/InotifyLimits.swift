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
