import QuotaWatchCore

/// What the live tree asks of the file system. The kernel implementation is
/// ``KernelFileSystem``; tests drive ``LiveTree`` with an in-memory one that also produces
/// the inotify events its operations would cause.
package protocol LiveFileSystem {
    /// The status of `name` inside a directory of the tree, read relative to that very
    /// directory (not to a path that a pending rename may have made stale).
    mutating func status(of name: [UInt8], in directory: DirectoryID, tree: TallyTree) -> Lookup

    /// The status of a directory of the tree itself.
    mutating func status(of directory: DirectoryID, tree: TallyTree) -> Lookup

    /// Whether the directory can be listed by this process now.
    mutating func readability(of directory: DirectoryID, tree: TallyTree) -> Readability

    /// Lists `directory`, which is in the tree with no entries yet, and everything below it
    /// into the tree, watching each directory before listing it.
    mutating func crawl(_ directory: DirectoryID, tree: inout TallyTree) -> CrawlReport

    /// Reports the opening of files in `directory` too, keeping its watch (cleanup's
    /// `order: lru`); false when that cannot be done now.
    mutating func watchOpens(in directory: DirectoryID, tree: TallyTree) -> Bool

    /// Stops watching; the directory left the tree or the tree is being rebuilt.
    mutating func removeWatch(_ watch: Int32)

    /// The directory left the tree: drop anything cached for it.
    mutating func forget(_ directory: DirectoryID)

    /// Crawls the whole root anew into a fresh tree (overflow recovery), dropping every
    /// cached directory handle first.
    mutating func crawlRoot() -> (TallyTree, CrawlReport)?

    /// Whether `status`, just read for a name in `directory`, shows an allocation that cannot
    /// change until the file's next event (``AllocationFinality``): such a file is owed no late
    /// or writeback re-stat, nor a second stat at a sync.
    mutating func allocationIsFinal(_ status: FileStatus, in directory: DirectoryID, tree: TallyTree) -> Bool
}

extension LiveFileSystem {
    /// Not known to be: every written file gets its re-stats.
    package mutating func allocationIsFinal(_ status: FileStatus, in directory: DirectoryID, tree: TallyTree) -> Bool {
        false
    }
}

package enum Readability: Equatable {
    case readable
    case unreadable
    /// Its path in the tree does not lead to it now: a rename is still in the queue.
    case elsewhere
}

package enum Lookup: Equatable {
    case found(FileStatus)
    /// The name does not exist in that directory now.
    case missing
    /// The directory may not be searched by this process: like du, count nothing inside it.
    case permissionDenied
    /// The directory itself could not be opened or is not the one in the tree (a rename of
    /// it is still on its way through the event queue).
    case directoryUnavailable
    /// The directory could not be opened for want of a descriptor: nothing is known of the
    /// name until one is free, and nothing says that anything moved. Deferred as
    /// ``directoryUnavailable`` is, but never taken for a directory lost.
    case outOfDescriptors
}

/// What a crawl found besides the entries themselves.
package struct CrawlReport: Sendable {
    /// Directories listed.
    package var listed = 0
    /// The top directory could not be opened at its path (renamed or removed meanwhile).
    package var failed = false
    /// Directories that could not be listed: their own inode is counted, as du does.
    package var unreadable: [DirectoryID] = []
    /// Directories that got no watch because the watch limit is reached.
    package var unwatched: [DirectoryID] = []
    /// Directories that could not be opened, listed or watched for lack of descriptors
    /// (EMFILE, ENFILE): their own inode is counted, and they are polled like unwatched ones
    /// until a listing succeeds.
    package var shortOfDescriptors: [DirectoryID] = []
    /// Directories whose watch failed for another reason: inotify needs read permission, so a
    /// chmod between the open and the watch refuses it while the listing (through the open
    /// descriptor) still succeeds. Such a directory would hear nothing: it is listed again.
    package var watchFailed: [DirectoryID] = []
    /// Watches added, with the directory each one watches.
    package var watches: [(watch: Int32, directory: DirectoryID)] = []
    /// Files listed whose last write is recent enough that writeback may still change their
    /// allocation with no event: they get the late re-stats an event-written file gets.
    package var recentlyWritten: [(directory: DirectoryID, name: [UInt8])] = []

    package init() {}
}
