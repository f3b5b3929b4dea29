import Glibc
import QuotaWatchCore

extension FileDescriptor {
    /// The size and free space of the file system holding this open file or directory. Asking
    /// through a descriptor keeps answering for the same file system even if the path that led
    /// there is later renamed or mounted over.
    ///
    /// The corresponding C function is `fstatvfs`.
    package func fileSystemSpace() throws(Errno) -> FileSystemSpace {
        var raw = statvfs()
        _ = try valueOrErrno { unsafe system_fstatvfs(rawValue, &raw) }.get()
        // A network or FUSE file system may report any block count: saturate, never trap.
        let fragment = UInt64(raw.f_frsize)
        return FileSystemSpace(
            totalBytes: Saturating.product(UInt64(raw.f_blocks), fragment),
            freeBytes: Saturating.product(UInt64(raw.f_bfree), fragment),
            availableBytes: Saturating.product(UInt64(raw.f_bavail), fragment))
    }
}
