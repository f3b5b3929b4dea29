import QuotaWatchCore
import QuotaWatchSystem

/// ``LiveFileSystem`` on the real kernel: stats relative to directory descriptors, crawls
/// with watches added before listing, and a small cache of open directory descriptors.
public struct KernelFileSystem: LiveFileSystem {
    public let root: FileDescriptor
    public let inotify: InotifyDescriptor
    private var handles: DirectoryHandles
    private let scanner: TreeScanner
    private let options: CrawlOptions

    /// `root` stays owned by the caller. Incremental crawls run on the engine thread alone
    /// (one worker): a new directory is usually small, and a thread hand-off would cost more.
    public init(root: FileDescriptor, inotify: InotifyDescriptor, options: CrawlOptions) {
        self.root = root
        self.inotify = inotify
        self.options = options
        handles = DirectoryHandles(root: root)
        var incremental = options
        incremental.workers = 1
        scanner = TreeScanner(options: incremental)
    }

    public mutating func status(of name: [UInt8], in directory: DirectoryID, tree: TallyTree) -> Lookup {
        guard let handle = handles.descriptor(for: directory, in: tree) else { return .directoryUnavailable }
        do {
            return .found(try handle.status(of: name))
        } catch {
            // Gone, or no longer reachable by us: either way du would not count it.
            return .missing
        }
    }

    public mutating func status(of directory: DirectoryID, tree: TallyTree) -> Lookup {
        guard let handle = handles.descriptor(for: directory, in: tree) else { return .directoryUnavailable }
        guard let status = try? handle.status() else { return .missing }
        return .found(status)
    }

    public mutating func isReadable(_ directory: DirectoryID, tree: TallyTree) -> Bool {
        // A descriptor opened earlier keeps working after a chmod, so ask afresh.
        guard let fresh = handles.openFresh(directory, in: tree) else { return false }
        fresh.close()
        return true
    }

    public mutating func crawl(_ directory: DirectoryID, tree: inout TallyTree) -> CrawlReport {
        guard let fresh = handles.openFresh(directory, in: tree) else {
            var report = CrawlReport()
            if case .found = status(of: directory, tree: tree) {
                // It exists but cannot be opened: unreadable, counted like du with its own inode.
                report.unreadable.append(directory)
            } else {
                report.failed = true
            }
            return report
        }
        defer { fresh.close() }
        let inotify = self.inotify
        let (_, report) = scanner.crawl(fresh, into: &tree, at: directory, beforeListing: Self.watcher(inotify))
        return report
    }

    public mutating func removeWatch(_ watch: Int32) { inotify.removeWatch(watch) }

    public mutating func forget(_ directory: DirectoryID) { handles.forget(directory) }

    public mutating func crawlRoot() -> (TallyTree, CrawlReport)? {
        handles.forgetAll()
        // A descriptor of its own: the root's was read to its end by the first crawl.
        guard let fresh = try? root.openDirectory([UInt8(ascii: ".")]) else { return nil }
        defer { fresh.close() }
        guard let status = try? fresh.status() else { return nil }
        var tree = TallyTree(root: status)
        let full = TreeScanner(options: options)
        let (_, report) = full.crawl(fresh, into: &tree, at: tree.root, beforeListing: Self.watcher(inotify))
        return (tree, report)
    }

    /// The first crawl at start-up, with the same watches.
    public func crawlInitial(progress: ((CrawlProgress) -> Void)?) throws(RootError) -> (TallyTree, CrawlReport) {
        let status: FileStatus
        do {
            status = try root.status()
        } catch {
            throw .cannotOpen(path: [], error)
        }
        var tree = TallyTree(root: status)
        let full = TreeScanner(options: options)
        let (_, report) = full.crawl(
            root, into: &tree, at: tree.root, beforeListing: Self.watcher(inotify), progress: progress)
        return (tree, report)
    }

    /// Adds the watch before the directory is listed, so nothing created meanwhile is missed.
    static func watcher(_ inotify: InotifyDescriptor) -> @Sendable (FileDescriptor) -> Int32 {
        { directory in
            do throws(Errno) {
                return try inotify.addWatch(directory, mask: .quotaWatch)
            } catch .noSpace {
                return WatchOutcome.limitReached
            } catch {
                return WatchOutcome.failed
            }
        }
    }
}
