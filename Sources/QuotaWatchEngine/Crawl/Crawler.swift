import Foundation
import QuotaWatchCore
import QuotaWatchSystem

/// What one crawled directory yields.
public struct CrawlResult: Sendable {
    /// The crawl's number for this directory: 0 is the crawl's root; every other number was
    /// handed out in the parent's listing (``DirectoryListing/Entry/crawlIndex``).
    public var crawlIndex: UInt32
    public var listing: DirectoryListing
    /// What `beforeListing` returned for this directory (the engine's watch descriptor).
    public var watch: Int32
    public var outcome: Outcome

    public enum Outcome: Sendable {
        case listed
        /// Opening or reading failed: counted like du, with the directory's own inode only.
        case unreadable(Errno)
        /// Gone, or replaced by something that is not a directory, before it could be opened.
        case vanished
    }

    /// Entries that were listed but could not be stat'ed.
    public var unstatable: [(name: [UInt8], error: Errno)]
}

public struct CrawlOptions: Sendable {
    public var workers: Int
    /// Do not descend into, nor count, directories on another file system (du -x).
    public var oneFileSystem: Bool

    public init(workers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount), oneFileSystem: Bool = false) {
        self.workers = workers
        self.oneFileSystem = oneFileSystem
    }
}

/// Lists a directory tree with a bounded pool of threads, relative to directory descriptors
/// so that depth is unlimited and no path string is built per file.
///
/// Results reach `deliver` on the calling thread, each directory after its parent, so the
/// caller (the tree's single owner) can file every listing under a directory it already has.
public struct Crawler: Sendable {
    public var options: CrawlOptions

    public init(options: CrawlOptions = CrawlOptions()) { self.options = options }

    /// Crawls below `root`, which stays open and owned by the caller.
    /// `beforeListing` runs on a worker thread with each directory's descriptor before the
    /// directory is read: the engine adds its inotify watch there, so nothing created during
    /// the listing is missed.
    public func crawl(
        root: FileDescriptor, rootDevice: UInt64,
        beforeListing: (@Sendable (FileDescriptor) -> Int32)? = nil,
        deliver: (CrawlResult) -> Void
    ) {
        let state = CrawlState()
        state.push(WorkItem(crawlIndex: 0, source: .borrowed(root)))
        let oneFileSystem = options.oneFileSystem
        var threads: [Thread] = []
        for _ in 0..<max(1, options.workers) {
            let thread = Thread {
                let reader = DirectoryReader()
                while let item = state.pop() {
                    let (result, children) = Self.process(
                        item, reader: reader, state: state, beforeListing: beforeListing,
                        rootDevice: oneFileSystem ? rootDevice : nil)
                    state.finish(result, children: children)
                }
            }
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
        while let result = state.nextResult() { deliver(result) }
    }

    private static func process(
        _ item: WorkItem, reader: borrowing DirectoryReader, state: CrawlState,
        beforeListing: (@Sendable (FileDescriptor) -> Int32)?, rootDevice: UInt64?
    ) -> (CrawlResult, [WorkItem]) {
        var result = CrawlResult(
            crawlIndex: item.crawlIndex, listing: DirectoryListing(), watch: -1, outcome: .listed, unstatable: [])
        let descriptor: FileDescriptor
        do {
            descriptor = try item.source.open()
        } catch .noSuchFileOrDirectory, .notDirectory, .tooManySymbolicLinks {
            result.outcome = .vanished
            return (result, [])
        } catch {
            result.outcome = .unreadable(error)
            return (result, [])
        }
        let owned = SharedDescriptor(descriptor, owned: item.source.isOwned)
        if let beforeListing { result.watch = beforeListing(descriptor) }
        var problems = DirectoryReader.Problems()
        do throws(Errno) {
            try reader.list(descriptor, into: &result.listing, problems: &problems) { state.nextCrawlIndex() }
        } catch {
            result.outcome = .unreadable(error)
        }
        result.unstatable = problems.unstatable
        if let rootDevice {
            result.listing.entries.removeAll { $0.status.kind == .directory && $0.status.device != rootDevice }
        }
        var children: [WorkItem] = []
        for entry in result.listing.entries where entry.status.kind == .directory {
            children.append(
                WorkItem(crawlIndex: entry.crawlIndex, source: .child(owned, Array(result.listing.name(of: entry)))))
        }
        return (result, children)
    }
}

/// A directory still to be listed: the root as given, or a name under an open parent.
struct WorkItem: Sendable {
    var crawlIndex: UInt32
    var source: Source

    enum Source: Sendable {
        case borrowed(FileDescriptor)
        case child(SharedDescriptor, [UInt8])

        func open() throws(Errno) -> FileDescriptor {
            switch self {
            case .borrowed(let descriptor): return descriptor
            case .child(let parent, let name): return try parent.descriptor.openDirectory(name)
            }
        }

        var isOwned: Bool {
            if case .borrowed = self { return false }
            return true
        }
    }
}

/// A directory descriptor kept open while children remain to be opened from it, and closed
/// when the last of them lets go. Depth-first scheduling keeps few of these alive at once.
final class SharedDescriptor: Sendable {
    let descriptor: FileDescriptor
    private let owned: Bool

    init(_ descriptor: FileDescriptor, owned: Bool) {
        self.descriptor = descriptor
        self.owned = owned
    }

    deinit { if owned { descriptor.close() } }
}

/// The crawl's shared state: a LIFO of work, a FIFO of results, and the count of directories
/// handed out but not yet finished, all under one lock.
final class CrawlState: @unchecked Sendable {
    // Every stored property below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var work: [WorkItem] = []
    private var results: [CrawlResult] = []
    private var resultsHead = 0
    private var unfinished = 0
    private var crawlIndexes: UInt32 = 1

    func nextCrawlIndex() -> UInt32 {
        condition.lock()
        defer { condition.unlock() }
        crawlIndexes += 1
        return crawlIndexes - 1
    }

    func push(_ item: WorkItem) {
        condition.lock()
        work.append(item)
        unfinished += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The next directory to list, or nil once the whole tree is done.
    func pop() -> WorkItem? {
        condition.lock()
        defer { condition.unlock() }
        while work.isEmpty {
            if unfinished == 0 { return nil }
            condition.wait()
        }
        return work.removeLast()
    }

    /// Publishes a directory's result before its children become work, which is what puts
    /// every parent's listing ahead of its children's.
    func finish(_ result: CrawlResult, children: [WorkItem]) {
        condition.lock()
        results.append(result)
        work.append(contentsOf: children.reversed())
        unfinished += children.count - 1
        condition.broadcast()
        condition.unlock()
    }

    func nextResult() -> CrawlResult? {
        condition.lock()
        defer { condition.unlock() }
        while resultsHead == results.count {
            if unfinished == 0 && work.isEmpty { return nil }
            condition.wait()
        }
        let result = results[resultsHead]
        resultsHead += 1
        if resultsHead > 1024 && resultsHead * 2 > results.count {
            results.removeFirst(resultsHead)
            resultsHead = 0
        }
        return result
    }
}
