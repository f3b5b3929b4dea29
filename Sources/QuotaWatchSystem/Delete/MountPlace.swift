import CQuotaWatchShims
import Glibc

/// Which mount a name is on, as `statx` reports it. A bind mount of a directory of the same
/// file system has the same device number as ROOT, so the device alone cannot tell the
/// deleter it is about to step onto another mount; the mount ID (Linux 5.8) can, and so can
/// `STATX_ATTR_MOUNT_ROOT` on the mount point itself.
struct MountPlace: Sendable, Equatable {
    /// `STATX_MNT_ID`; nil where the kernel does not report it.
    var mountID: UInt64?
    /// `STATX_ATTR_MOUNT_ROOT`; nil where the kernel does not report it.
    var isMountRoot: Bool?

    /// Whether a name below ROOT with this place lies on another mount than ROOT's.
    func isAnotherMount(than root: MountPlace) -> Bool {
        if let mountID, let rootID = root.mountID { return mountID != rootID }
        // Without mount IDs, a mount point still says it is the root of its mount.
        return isMountRoot == true
    }
}

extension FileDescriptor {
    /// The mount `name` (relative to this directory, never following a symlink) is on.
    ///
    /// The corresponding C function is `statx` with `STATX_MNT_ID`.
    func mountPlace(of name: [UInt8]) throws(Errno) -> MountPlace {
        try unsafe withCString(name) { path throws(Errno) in try unsafe mountPlace(path, flags: AT_SYMLINK_NOFOLLOW) }
    }

    /// The mount this open file or directory is on.
    ///
    /// The corresponding C function is `statx` with `AT_EMPTY_PATH`.
    func mountPlace() throws(Errno) -> MountPlace {
        try unsafe mountPlace("", flags: CInt(QW_AT_EMPTY_PATH))
    }

    private func mountPlace(_ path: UnsafePointer<CChar>, flags: CInt) throws(Errno) -> MountPlace {
        var mountID: UInt64 = 0
        var mountRoot: CInt = -1
        _ = try valueOrErrno { unsafe system_statx_mount(rawValue, path, flags, &mountID, &mountRoot) }.get()
        return MountPlace(mountID: mountID == 0 ? nil : mountID, isMountRoot: mountRoot < 0 ? nil : mountRoot == 1)
    }
}
