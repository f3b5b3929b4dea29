import Glibc
import QuotaWatchCore

extension FileDescriptor {
    /// The file handle of the object open here, and the id of the mount it was opened through.
    /// Fails with EOPNOTSUPP on a file system that has no file handles, EOVERFLOW for a handle
    /// longer than the 128 bytes the kernel allows.
    ///
    /// The corresponding C function is `name_to_handle_at` (with `AT_EMPTY_PATH`).
    package func fileHandle(fileSystem: UInt64) throws(Errno) -> (handle: FileHandleKey, mountID: UInt64) {
        var length: UInt32 = 0
        var type: CInt = 0
        var mountID: UInt64 = 0
        // On the stack: the crawl takes one handle per directory, and a heap buffer each left
        // the crawl's threads' malloc arenas fragmented (RSS at ready).
        let handle = try unsafe withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) {
            buffer throws(Errno) -> FileHandleKey in
            _ = try valueOrErrno {
                unsafe system_name_to_handle(
                    rawValue, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(buffer.count), &length,
                    &type, &mountID)
            }.get()
            return unsafe FileHandleKey(
                fileSystem: fileSystem, type: type,
                raw: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<Int(min(length, 128))]))
        }
        return (handle, mountID)
    }

    /// statfs's `f_fsid` for the file system this descriptor is on, as fanotify reports it.
    ///
    /// The corresponding C function is `fstatfs`.
    package func fileSystemID() throws(Errno) -> UInt64 {
        var fsid: UInt64 = 0
        _ = try valueOrErrno { unsafe system_file_system_id(rawValue, &fsid) }.get()
        return fsid
    }

    /// What file system this descriptor is on, as far as a file's allocation settling is
    /// concerned: statfs's `f_type` and `f_bsize`.
    ///
    /// The corresponding C function is `fstatfs`.
    package func allocationFinality() throws(Errno) -> AllocationFinality {
        var type: UInt64 = 0
        var blockSize: UInt64 = 0
        _ = try valueOrErrno { unsafe system_file_system_kind(rawValue, &type, &blockSize) }.get()
        return AllocationFinality(fileSystemType: type, blockSize: blockSize)
    }

    /// Opens the object `handle` names, on the file system this descriptor is on, as an
    /// `O_PATH` descriptor: enough to stat it, and no access to its data. Needs
    /// CAP_DAC_READ_SEARCH; ESTALE once the object is gone.
    ///
    /// The corresponding C function is `open_by_handle_at`.
    package func open(handle: FileHandleKey) throws(Errno) -> FileDescriptor {
        guard !handle.bytes.isEmpty else { throw .invalidArgument }
        let raw = try unsafe handle.bytes.withUnsafeBufferPointer { buffer throws(Errno) in
            try valueOrErrno {
                unsafe system_open_by_handle(rawValue, buffer.baseAddress!, UInt32(buffer.count), handle.type)
            }.get()
        }
        return FileDescriptor(rawValue: raw)
    }
}
