import QuotaWatchCore
import QuotaWatchEngine

/// The engine's side of the fake, mirroring ``KernelFileSystem``: a directory of the tree is
/// reached through a cached descriptor, which follows its inode wherever it went (even out of
/// the root, even after removal), or else opened at its path in the tree and accepted only if
/// it is the inode the tree knows. Crawls and readability checks always open by path.
extension FakeFileSystem: LiveFileSystem {
    /// What opening a directory of the tree at its path finds.
    enum Opening {
        case opened(InodeNumber)
        /// The right directory is there, but it cannot be opened (mode 000).
        case unreadable
        /// Nothing, something else, or an unsearchable directory on the way.
        case unavailable
    }

    func open(_ directory: DirectoryID, in tree: TallyTree) -> Opening {
        var current = Self.rootInode
        for component in tree.components(of: directory) {
            guard nodes[current]!.isReadable, let next = nodes[current]!.entries[Array(component)],
                nodes[next]!.isDirectory
            else { return .unavailable }
            current = next
        }
        guard current == tree.inode(of: directory), tree.device(of: directory) == Self.device else {
            return .unavailable
        }
        return nodes[current]!.isReadable ? .opened(current) : .unreadable
    }

    mutating func descriptor(for directory: DirectoryID, in tree: TallyTree) -> InodeNumber? {
        if directory == tree.root { return Self.rootInode }
        handleClock += 1
        if let cached = handles[directory] {
            handles[directory] = (cached.inode, handleClock)
            return cached.inode
        }
        guard case .opened(let inode) = open(directory, in: tree) else { return nil }
        guard handleCapacity > 0 else { return inode }
        if handles.count >= handleCapacity, let oldest = handles.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            handles.removeValue(forKey: oldest.key)
        }
        handles[directory] = (inode, handleClock)
        return inode
    }

    mutating func status(of name: [UInt8], in directory: DirectoryID, tree: TallyTree) -> Lookup {
        guard let inode = descriptor(for: directory, in: tree) else {
            if case .unreadable = open(directory, in: tree) { return .permissionDenied }
            return .directoryUnavailable
        }
        let node = nodes[inode]!
        // fstatat needs search permission on the directory: EACCES, which counts as missing.
        guard node.isReadable else { return .permissionDenied }
        guard let child = node.entries[name] else { return .missing }
        return .found(fileStatus(of: child))
    }

    func allocationIsFinal(_ status: FileStatus, in directory: DirectoryID, tree: TallyTree) -> Bool {
        guard let allocationFinality, status.kind == .regular else { return false }
        return allocationFinality.isFinal(apparentBytes: status.apparentBytes, allocatedBytes: status.allocatedBytes)
    }

    /// Stat'ed through its parent, as KernelFileSystem does, so an unreadable directory
    /// still has a status; another inode under its name means a rename is still queued.
    mutating func status(of directory: DirectoryID, tree: TallyTree) -> Lookup {
        guard let parent = tree.parent(of: directory) else { return .found(fileStatus(of: Self.rootInode)) }
        let lookup = status(of: Array(tree.name(of: directory)), in: parent, tree: tree)
        if case .found(let status) = lookup, status.inode != tree.inode(of: directory) { return .directoryUnavailable }
        return lookup
    }

    mutating func readability(of directory: DirectoryID, tree: TallyTree) -> Readability {
        switch open(directory, in: tree) {
        case .opened: return .readable
        case .unreadable: return .unreadable
        case .unavailable: return .elsewhere
        }
    }

    /// Follows ``LiveFileSystem/crawl(_:tree:)``'s contract: a top directory that is there
    /// but cannot be opened is reported unreadable, one that is not there failed.
    mutating func crawl(_ directory: DirectoryID, tree: inout TallyTree) -> CrawlReport {
        var report = CrawlReport()
        switch open(directory, in: tree) {
        case .opened(let inode): list(inode, as: directory, into: &tree, report: &report)
        case .unreadable: report.unreadable.append(directory)
        case .unavailable: report.failed = true
        }
        return report
    }

    mutating func removeWatch(_ watch: Int32) { dropWatch(watch) }

    mutating func watchOpens(in directory: DirectoryID, tree: TallyTree) -> Bool {
        let watch = tree.watch(of: directory)
        guard inodeByWatch[watch] != nil else { return false }
        watchesOpens.insert(watch)
        return true
    }

    mutating func forget(_ directory: DirectoryID) { handles.removeValue(forKey: directory) }

    mutating func crawlRoot() -> (TallyTree, CrawlReport)? {
        handles.removeAll()
        var tree = TallyTree(root: fileStatus(of: Self.rootInode))
        var report = CrawlReport()
        list(Self.rootInode, as: tree.root, into: &tree, report: &report)
        return (tree, report)
    }

    /// Lists a subtree parents first, adding each directory's watch before listing it, the
    /// way TreeScanner does; unreadable directories get neither a watch nor a listing.
    private mutating func list(
        _ top: InodeNumber, as topDirectory: DirectoryID, into tree: inout TallyTree, report: inout CrawlReport
    ) {
        var work = [(top, topDirectory)]
        while let (inode, directory) = work.popLast() {
            let watch = addWatch(inode)
            tree.setWatch(max(watch, -1), of: directory)
            if watch >= 0 {
                report.watches.append((watch, directory))
            } else if watch == WatchOutcome.limitReached {
                report.unwatched.append(directory)
            }
            report.listed += 1
            var listing = DirectoryListing()
            var subdirectories: [InodeNumber] = []
            for (name, child) in nodes[inode]!.entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let status = fileStatus(of: child)
                if status.kind == .directory {
                    listing.append(name: name, status: status, crawlIndex: UInt32(subdirectories.count))
                    subdirectories.append(child)
                } else {
                    listing.append(name: name, status: status)
                    if reportsFilesAsRecentlyWritten { report.recentlyWritten.append((directory, name)) }
                }
            }
            for (crawlIndex, child) in tree.addListing(listing, to: directory) {
                let childInode = subdirectories[Int(crawlIndex)]
                if nodes[childInode]!.isReadable {
                    work.append((childInode, child))
                } else {
                    report.unreadable.append(child)
                }
            }
        }
    }
}
