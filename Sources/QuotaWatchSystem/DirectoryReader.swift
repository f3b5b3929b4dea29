import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// Lists a directory with large `getdents64` reads (through ``DirectoryEntries``) and stats
/// each entry relative to it.
///
/// One reader per thread: its buffer is reused for every directory the thread lists, and no
/// path string is ever built.
package struct DirectoryReader: ~Copyable {
    private let entries: DirectoryEntries

    package init(bufferSize: Int = 64 * 1024) {
        entries = DirectoryEntries(bufferSize: bufferSize)
    }

    /// What went wrong with individual entries; the listing holds the rest.
    package struct Problems: Sendable {
        /// Entries that could not be stat'ed for a reason other than having vanished.
        package var unstatable: [(name: [UInt8], error: Errno)] = []

        package init() {}
    }

    /// Appends the next buffer-full of `directory`'s entries (all but "." and ".."), with
    /// their status, to `listing`; returns false once the directory is exhausted. Reading a
    /// huge directory a buffer at a time keeps at most one buffer's worth of entries in flight.
    /// Entries that vanish between listing and stat are skipped: the tree will hear of them.
    /// `crawlIndex` numbers each subdirectory found, in order.
    ///
    /// The corresponding C functions are `getdents64` and `fstatat`.
    package func listMore(
        _ directory: FileDescriptor, into listing: inout DirectoryListing, problems: inout Problems,
        crawlIndex: () -> UInt32
    ) throws(Errno) -> Bool {
        try unsafe entries.readMore(directory) { name in
            // The name is NUL-terminated in the buffer: stat it as the C string it is.
            let cName = unsafe name.baseAddress!.assumingMemoryBound(to: CChar.self)
            let status: FileStatus
            do throws(Errno) {
                status = try unsafe directory.statusOfCString(cName)
            } catch .noSuchFileOrDirectory {
                return
            } catch {
                unsafe problems.unstatable.append((Array(name), error))
                return
            }
            let index = status.kind == .directory ? crawlIndex() : .max
            unsafe listing.append(rawName: name, status: status, crawlIndex: index)
        }
    }
}
