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

extension FileDescriptor {
    /// Inodes in use on the file system holding this open file or directory (`f_files -
    /// f_ffree`), or nil where the file system does not count them (btrfs, many network and
    /// FUSE file systems report 0 inodes).
    ///
    /// The corresponding C function is `fstatvfs`.
    package func fileSystemInodesInUse() throws(Errno) -> UInt64? {
        var raw = statvfs()
        _ = try valueOrErrno { unsafe system_fstatvfs(rawValue, &raw) }.get()
        guard raw.f_files > 0 else { return nil }
        return UInt64(raw.f_files) - min(UInt64(raw.f_files), UInt64(raw.f_ffree))
    }
}
