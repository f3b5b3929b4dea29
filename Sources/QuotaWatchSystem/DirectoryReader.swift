import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// Lists a directory with large `getdents64` reads and stats each entry relative to it.
///
/// One reader per thread: its buffer is reused for every directory the thread lists, and no
/// path string is ever built.
@safe public struct DirectoryReader: ~Copyable {
    private let buffer: UnsafeMutableRawBufferPointer

    public init(bufferSize: Int = 64 * 1024) {
        unsafe buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 8)
    }

    deinit { unsafe buffer.deallocate() }

    /// What went wrong with individual entries; the listing holds the rest.
    public struct Problems: Sendable {
        /// Entries that could not be stat'ed for a reason other than having vanished.
        public var unstatable: [(name: [UInt8], error: Errno)] = []

        public init() {}
    }

    /// Appends the next buffer-full of `directory`'s entries (all but "." and ".."), with
    /// their status, to `listing`; returns false once the directory is exhausted. Reading a
    /// huge directory a buffer at a time keeps at most one buffer's worth of entries in flight.
    /// Entries that vanish between listing and stat are skipped: the tree will hear of them.
    /// `crawlIndex` numbers each subdirectory found, in order.
    ///
    /// The corresponding C functions are `getdents64` and `fstatat`.
    public func listMore(
        _ directory: FileDescriptor, into listing: inout DirectoryListing, problems: inout Problems,
        crawlIndex: () -> UInt32
    ) throws(Errno) -> Bool {
        do {
            let count = try valueOrErrno {
                unsafe system_getdents64(directory.rawValue, buffer.baseAddress!, buffer.count)
            }.get()
            if count == 0 { return false }
            var offset = 0
            while offset < count {
                let record = unsafe buffer.baseAddress! + offset
                let recordLength = Int(
                    unsafe record.loadUnaligned(fromByteOffset: Int(QW_DIRENT_RECLEN_OFFSET), as: UInt16.self))
                offset += recordLength
                let name = unsafe UnsafePointer<CChar>(
                    record.advanced(by: Int(QW_DIRENT_NAME_OFFSET)).assumingMemoryBound(to: CChar.self))
                let nameLength = unsafe strlen(name)
                if unsafe isDotOrDotDot(name, nameLength) { continue }
                let status: FileStatus
                do {
                    status = try unsafe directory.statusOfCString(name)
                } catch .noSuchFileOrDirectory {
                    continue
                } catch {
                    let bytes = unsafe Array(UnsafeRawBufferPointer(start: name, count: nameLength))
                    problems.unstatable.append((bytes, error))
                    continue
                }
                let index = status.kind == .directory ? crawlIndex() : .max
                unsafe listing.append(
                    name: UnsafeRawBufferPointer(start: name, count: nameLength), status: status, crawlIndex: index)
            }
            return true
        }
    }

    private func isDotOrDotDot(_ name: UnsafePointer<CChar>, _ length: Int) -> Bool {
        guard unsafe name[0] == 0x2e else { return false }
        if length == 1 { return true }
        return unsafe length == 2 && name[1] == 0x2e
    }
}
