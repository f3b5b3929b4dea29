import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// The one reader of `getdents64` records: the crawler (through ``DirectoryReader``), the
/// `/proc` scans and the deleter all list directories with it.
///
/// Its buffer is reused for every read, so one instance serves a thread for as many
/// directories as it lists; no path string is ever built.
@safe package struct DirectoryEntries: ~Copyable {
    private let buffer: UnsafeMutableRawBufferPointer

    package init(bufferSize: Int = 64 * 1024) {
        unsafe buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 8)
    }

    deinit { unsafe buffer.deallocate() }

    /// Reads the next buffer-full of `directory`'s entries and hands each name but "." and ".."
    /// to `body`; returns false once the directory is exhausted. The name's bytes are valid
    /// only during the call, and a NUL follows them in the buffer, so they can be passed on as
    /// a C string.
    ///
    /// The corresponding C function is `getdents64`.
    package func readMore(_ directory: FileDescriptor, _ body: (UnsafeRawBufferPointer) -> Void) throws(Errno) -> Bool {
        let count = try valueOrErrno {
            unsafe system_getdents64(directory.rawValue, buffer.baseAddress!, buffer.count)
        }.get()
        if count == 0 { return false }
        unsafe Self.forEachName(in: UnsafeRawBufferPointer(rebasing: buffer[..<count]), body)
        return true
    }

    /// Every name in `directory` but "." and "..", in the order the kernel lists them.
    ///
    /// The corresponding C function is `getdents64`.
    package static func names(of directory: FileDescriptor, bufferSize: Int = 32 * 1024) throws(Errno) -> [[UInt8]] {
        let entries = DirectoryEntries(bufferSize: bufferSize)
        var names: [[UInt8]] = []
        while try unsafe entries.readMore(directory, { unsafe names.append(Array($0)) }) {}
        return names
    }

    /// Decodes `records` as `getdents64` writes them (`struct linux_dirent64`: inode, offset,
    /// record length, type, then the name and its NUL, padded), handing each name but "." and
    /// ".." to `body`. A record whose length is 0 or runs past the end ends the walk; the
    /// kernel writes none, and the walk must neither spin nor read past the buffer.
    package static func forEachName(in records: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        let nameOffset = Int(QW_DIRENT_NAME_OFFSET)
        var offset = 0
        while offset + nameOffset <= records.count {
            let recordLength = Int(
                unsafe records.loadUnaligned(fromByteOffset: offset + Int(QW_DIRENT_RECLEN_OFFSET), as: UInt16.self))
            guard recordLength > nameOffset, offset + recordLength <= records.count else { return }
            let field = unsafe UnsafeRawBufferPointer(
                rebasing: records[(offset + nameOffset)..<(offset + recordLength)])
            // Bounded by the record, where strlen would trust the kernel's NUL.
            let end = unsafe memchr(field.baseAddress!, 0, field.count).map {
                unsafe field.baseAddress!.distance(to: $0)
            }
            let name = unsafe UnsafeRawBufferPointer(rebasing: field[..<(end ?? field.count)])
            offset += recordLength
            if unsafe isDotOrDotDot(name) { continue }
            unsafe body(name)
        }
    }

    private static func isDotOrDotDot(_ name: UnsafeRawBufferPointer) -> Bool {
        guard let first = unsafe name.first, first == UInt8(ascii: ".") else { return false }
        return unsafe name.count == 1 || (name.count == 2 && name[1] == UInt8(ascii: "."))
    }
}
