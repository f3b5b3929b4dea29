import Glibc
import QuotaWatchCore

/// A fanotify notification group reporting directory handles and names
/// (`FAN_REPORT_DFID_NAME | FAN_REPORT_FID`, and `FAN_REPORT_TARGET_FID` where the kernel
/// has it), close-on-exec and non-blocking.
package struct FanotifyDescriptor: Sendable {
    package let descriptor: FileDescriptor

    /// `unlimitedQueue`: the kernel never drops events for lack of queue space (needs
    /// CAP_SYS_ADMIN, which a filesystem mark needs anyway). EPERM without CAP_SYS_ADMIN,
    /// EINVAL on a kernel without `FAN_REPORT_DFID_NAME` (before 5.9).
    ///
    /// The corresponding C function is `fanotify_init`.
    package init(unlimitedQueue: Bool) throws(Errno) {
        var flags =
            FanotifyInitFlag.notificationClass | FanotifyInitFlag.reportDirectoryAndName
            | FanotifyInitFlag.closeOnExec | FanotifyInitFlag.nonBlocking
        if unlimitedQueue { flags |= FanotifyInitFlag.unlimitedQueue }
        // Entry events with the entry's own handle where the kernel has it (5.17). Without it
        // (EINVAL) the group is made as before: a creation then carries no handle of the file,
        // so no file is taken for born outside.
        let withTarget = flags | FanotifyInitFlag.reportTargetFileID
        let raw: Int32
        switch valueOrErrno({ system_fanotify_init(withTarget, UInt32(O_RDONLY)) }) {
        case .success(let value): raw = value
        case .failure(.invalidArgument): raw = try valueOrErrno { system_fanotify_init(flags, UInt32(O_RDONLY)) }.get()
        case .failure(let error): throw error
        }
        descriptor = FileDescriptor(rawValue: raw)
    }

    /// Marks the whole file system `directory` is on. EXDEV for a subvolume or an id-mapped
    /// mount whose fsid differs from its super block's, EOPNOTSUPP or ENODEV for a file system
    /// without file handles or fsid, EINVAL for a kernel without `FAN_RENAME` (before 5.17).
    ///
    /// The corresponding C function is `fanotify_mark`.
    package func markFileSystem(of directory: FileDescriptor, mask: FanotifyMask) throws(Errno) {
        _ = try valueOrErrno {
            system_fanotify_mark(
                descriptor.rawValue, FanotifyMarkFlag.add | FanotifyMarkFlag.fileSystem, mask.rawValue,
                directory.rawValue, nil)
        }.get()
    }

    /// Marks the inode of `directory` alone (not its file system) for `mask`: the opens of the
    /// files in it, for `order: lru`. The mark lives as long as the directory's inode.
    ///
    /// The corresponding C function is `fanotify_mark`.
    package func markInode(_ directory: FileDescriptor, mask: FanotifyMask) throws(Errno) {
        _ = try valueOrErrno {
            system_fanotify_mark(descriptor.rawValue, FanotifyMarkFlag.add, mask.rawValue, directory.rawValue, nil)
        }.get()
    }

    /// Reads whatever events are queued into `buffer`; returns how many bytes came, 0 when
    /// nothing was queued (the descriptor is non-blocking). They are judged in place
    /// (`FanotifyEventPeek`): most are about the rest of the file system and are never decoded.
    ///
    /// The corresponding C function is `read`.
    package func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
        try descriptor.readAvailable(into: &buffer)
    }

    package func close() { descriptor.close() }
}
