import QuotaWatchCore
import QuotaWatchSystem

/// ``LiveFileSystem`` on the real kernel: stats relative to directory descriptors, crawls
/// with each directory watched by the ``ChangeBackend`` before it is listed, and a small cache
/// of open directory descriptors.
package struct KernelFileSystem: LiveFileSystem {
    package let root: FileDescriptor
    package let backend: any ChangeBackend
    var handles: DirectoryHandles
    /// Per device, what its file system says about allocation settling, learnt from the
    /// first directory on it opened for the question (nil: fstatfs failed, so nothing is final
    /// there). Dropped at every crawl: a mount (which a crawl of its place follows) may bring
    /// another file system under a device number seen before.
    private var finality: [UInt64: AllocationFinality?] = [:]
    private let scanner: TreeScanner
    private let options: CrawlOptions

    /// `root` stays owned by the caller. Incremental crawls run on the engine thread alone
    /// (one worker): a new directory is usually small, and a thread hand-off would cost more.
    package init(root: FileDescriptor, backend: any ChangeBackend, options: CrawlOptions) {
        self.root = root
        self.backend = backend
        self.options = options
        handles = DirectoryHandles(root: root, capacity: Self.handleCapacity(limit: ResourceLimits.openFileLimit()))
        var incremental = options
        incremental.workers = 1
        scanner = TreeScanner(options: incremental)
    }

    package mutating func status(of name: [UInt8], in directory: DirectoryID, tree: TallyTree) -> Lookup {
        do {
            return try handles.withDescriptor(for: directory, in: tree) { Self.lookUp(name, in: $0) }
        } catch .permissionDenied {
            return .permissionDenied
        } catch .outOfDescriptors {
            // Deferred like a directory whose rename is still queued, and retried.
            DescriptorShortage.report("opening a directory to stat a name in it", limit: ResourceLimits.openFileLimit())
            return .outOfDescriptors
        } catch {
            return .directoryUnavailable
        }
    }

    private static func lookUp(_ name: [UInt8], in directory: FileDescriptor) -> Lookup {
        do throws(Errno) {
            return .found(try directory.status(of: name))
        } catch .permissionDenied {
            return .permissionDenied
        } catch {
            return .missing
        }
    }

    package mutating func allocationIsFinal(_ status: FileStatus, in directory: DirectoryID, tree: TallyTree) -> Bool {
        // A name that is a mount point of its own is on a file system the directory is not.
        guard status.kind == .regular, status.device == tree.device(of: directory) else { return false }
        if let known = finality[status.device] {
            return known?.isFinal(apparentBytes: status.apparentBytes, allocatedBytes: status.allocatedBytes) ?? false
        }
        do {
            let learnt = try handles.withDescriptor(for: directory, in: tree) { try? $0.allocationFinality() }
            finality[status.device] = .some(learnt)
            return learnt?.isFinal(apparentBytes: status.apparentBytes, allocatedBytes: status.allocatedBytes) ?? false
        } catch {
            return false  // the directory could not be opened now: asked again next time
        }
    }

    /// Stat'ed through its parent, which works for a directory that may not be read.
    package mutating func status(of directory: DirectoryID, tree: TallyTree) -> Lookup {
        guard let parent = tree.parent(of: directory) else {
            guard let status = try? root.status() else { return .missing }
            return .found(status)
        }
        let lookup = status(of: Array(tree.name(of: directory)), in: parent, tree: tree)
        if case .found(let status) = lookup, status.inode != tree.inode(of: directory) {
            // The name now holds another directory: a rename is still in the queue.
            return .directoryUnavailable
        }
        return lookup
    }

    package mutating func readability(of directory: DirectoryID, tree: TallyTree) -> Readability {
        // A descriptor opened earlier keeps working after a chmod, so ask afresh.
        let fresh: FileDescriptor
        do {
            fresh = try handles.openChecked(directory, in: tree)
        } catch .permissionDenied {
            return .unreadable
        } catch .outOfDescriptors {
            DescriptorShortage.report("opening a directory to read it", limit: ResourceLimits.openFileLimit())
            return .elsewhere
        } catch {
            return .elsewhere
        }
        defer { fresh.close() }
        // Read without search (chmod 644): the names can be listed but not one stat'ed, so
        // du counts the directory alone, and so does the crawl.
        return Crawler.maySearch(fresh) ? .readable : .unreadable
    }

    package mutating func crawl(_ directory: DirectoryID, tree: inout TallyTree) -> CrawlReport {
        finality.removeAll(keepingCapacity: true)
        let fresh: FileDescriptor
        do {
            fresh = try openReleasingCache(directory, tree: tree)
        } catch .outOfDescriptors {
            // Counted with its own inode, reported degraded, and listed again by polling.
            var report = CrawlReport()
            report.shortOfDescriptors.append(directory)
            DescriptorShortage.report("opening a new directory", limit: ResourceLimits.openFileLimit())
            return report
        } catch .permissionDenied {
            // There but not readable: du counts its own inode only. Its parent's watch still
            // reports a chmod that makes it readable.
            var report = CrawlReport()
            report.unreadable.append(directory)
            return report
        } catch {
            var report = CrawlReport()
            report.failed = true
            return report
        }
        defer { fresh.close() }
        let (_, report) = scanner.crawl(
            fresh, into: &tree, at: directory, beforeListing: backend.watch,
            notingFilesChangedSince: Self.writebackHorizon())
        if !report.shortOfDescriptors.isEmpty {
            handles.forgetAll()
            DescriptorShortage.report("listing new directories", limit: ResourceLimits.openFileLimit())
        }
        return report
    }

    /// Opens a directory of the tree; out of descriptors, gives the cached ones back and
    /// tries once more.
    private mutating func openReleasingCache(
        _ directory: DirectoryID, tree: TallyTree
    ) throws(DirectoryHandles.OpenFailure) -> FileDescriptor {
        do {
            return try handles.openChecked(directory, in: tree)
        } catch .outOfDescriptors {
            handles.forgetAll()
            return try handles.openChecked(directory, in: tree)
        }
    }

    /// Directory descriptors kept open: 256, or an eighth of a low limit on open files, so
    /// that the cache never takes the descriptors a crawl needs.
    static func handleCapacity(limit: UInt64?) -> Int {
        guard let limit else { return 256 }
        return Int(min(256, max(2, limit / 8)))
    }

    package mutating func removeWatch(_ watch: Int32) { backend.unwatch(watch) }

    package mutating func watchOpens(in directory: DirectoryID, tree: TallyTree) -> Bool {
        let key = tree.watch(of: directory)
        guard key >= 0 else { return false }
        let backend = self.backend
        return (try? handles.withDescriptor(for: directory, in: tree) { backend.watchOpens($0, key: key) }) == true
    }

    package mutating func forget(_ directory: DirectoryID) { handles.forget(directory) }

    package mutating func crawlRoot() -> (TallyTree, CrawlReport)? {
        handles.forgetAll()
        finality.removeAll()
        return try? crawlWhole(progress: nil)
    }

    /// The first crawl at start-up, with the same watches.
    package func crawlInitial(progress: ((CrawlProgress) -> Void)?) throws(RootError) -> (TallyTree, CrawlReport) {
        do {
            return try crawlWhole(progress: progress)
        } catch {
            throw .cannotOpen(path: [], error)
        }
    }

    /// Crawls the root into a fresh tree on a descriptor of its own (a shared one would be read
    /// to its end after the first crawl), watching every directory.
    private func crawlWhole(progress: ((CrawlProgress) -> Void)?) throws(Errno) -> (TallyTree, CrawlReport) {
        let fresh = try root.openDirectory([UInt8(ascii: ".")])
        defer { fresh.close() }
        var tree = TallyTree(root: try fresh.status())
        let full = TreeScanner(options: options)
        let (_, report) = full.crawl(
            fresh, into: &tree, at: tree.root, beforeListing: backend.watch, progress: progress,
            notingFilesChangedSince: Self.writebackHorizon())
        // The tables doubled as the crawl filled them; the daemon keeps them at this size.
        tree.fitIndexesToContents()
        return (tree, report)
    }

    /// Files changed (ctime: a write or a rename, which no program can set back) after this
    /// wall-clock moment (ns since the epoch) may still gain a block from writeback: the kernel
    /// writes dirty data back within `vm.dirty_expire_centisecs` (30 s) plus one writeback period
    /// (5 s).
    static func writebackHorizon() -> Int64 {
        WallClock.nanosecondsSinceEpoch() - 35_000_000_000
    }

    /// Watches the root's parent for the deletion or renaming of `rootName`, if that name in
    /// the parent is the root (not so when the root was given through a symlink). Nil when
    /// there is no such parent to watch, as for `/`.
    package func watchRootParent(rootName: [UInt8], rootStatus: FileStatus) -> Int32? {
        guard !rootName.isEmpty, rootName != [UInt8(ascii: ".")], rootName != [UInt8(ascii: "."), UInt8(ascii: ".")],
            let parent = try? root.openDirectory([UInt8(ascii: "."), UInt8(ascii: ".")])
        else { return nil }
        defer { parent.close() }
        guard let named = try? parent.status(of: rootName), named.inode == rootStatus.inode,
            named.device == rootStatus.device
        else { return nil }
        return backend.watchRemovals(in: parent)
    }
}
