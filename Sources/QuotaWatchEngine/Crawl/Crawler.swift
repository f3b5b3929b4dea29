import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// What one crawled directory yields, in one or more parts: a large directory is handed
/// over a buffer-full at a time.
public struct CrawlResult: Sendable {
    /// The crawl's number for this directory: 0 is the crawl's root; every other number was
    /// handed out in the parent's listing (``DirectoryListing/Entry/crawlIndex``).
    public var crawlIndex: UInt32
    public var listing: DirectoryListing
    /// What `beforeListing` returned for this directory (the engine's watch descriptor).
    public var watch: Int32
    public var outcome: Outcome
    /// False while more parts of this directory's listing follow.
    public var isComplete: Bool

    public enum Outcome: Sendable {
        case listed
        /// Opening or reading failed: counted like du, with the directory's own inode only.
        case unreadable(Errno)
        /// Gone, or replaced by something that is not a directory, before it could be opened.
        case vanished
    }

    /// Entries that were listed but could not be stat'ed.
    public var unstatable: [(name: [UInt8], error: Errno)]

    /// The directory's status read from the descriptor that was watched and listed, in the
    /// first part of a subdirectory's result. The parent's listing stat'ed the name a moment
    /// earlier; a rename over that name in between leaves the name holding another inode,
    /// and the record must describe the inode the watch and the listing are really about.
    public var openedStatus: FileStatus?
    /// The directory could be read but not searched (chmod 644): its names were listed, none
    /// could be stat'ed, and, as du does, it counts as its own inode alone.
    public var searchDenied = false
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
/// The calling thread is itself one of the workers: it lists directories whenever no result
/// is waiting, so a one-worker crawl runs on one thread with no hand-offs at all, and a
/// larger one adds `workers - 1` helper threads.
public struct Crawler: Sendable {
    public var options: CrawlOptions

    public init(options: CrawlOptions = CrawlOptions()) { self.options = options }

    /// Crawls below `root`, which stays open and owned by the caller.
    /// `beforeListing` runs with each directory's descriptor before the directory is read:
    /// the engine adds its inotify watch there, so nothing created during the listing is missed.
    /// `ancestors` are the (device, inode) pairs of `root` itself and of every directory above
    /// it that the caller counts: a subdirectory that is one of them (a bind mount of an
    /// ancestor below itself) is a cycle, and is skipped as du skips it.
    public func crawl(
        root: FileDescriptor, rootDevice: UInt64, ancestors: [DirectoryIdentity] = [],
        beforeListing: (@Sendable (FileDescriptor) -> Int32)? = nil,
        deliver: (CrawlResult) -> Void
    ) {
        let state = CrawlState()
        var chain: AncestorChain?
        for identity in ancestors.reversed() { chain = AncestorChain(identity, parent: chain) }
        state.push(WorkItem(crawlIndex: 0, source: .borrowed(root), ancestors: chain))
        let device = options.oneFileSystem ? rootDevice : nil
        for _ in 1..<max(1, options.workers) {
            // Not joined: a helper returns once the tree is done, which is when this returns.
            _ = JoinableThread(name: "crawl", stackSize: 1 << 20) {
                let reader = DirectoryReader()
                while let item = state.pop() {
                    Self.process(item, reader: reader, state: state, beforeListing: beforeListing, rootDevice: device)
                }
            }
        }
        let reader = DirectoryReader()
        while true {
            switch state.nextForOwner() {
            case .result(let result): deliver(result)
            case .work(let item):
                Self.process(
                    item, reader: reader, state: state, beforeListing: beforeListing, rootDevice: device,
                    isOwner: true)
            case .done: return
            }
        }
    }

    /// Lists one directory, publishing each buffer-full with the subdirectories it found.
    private static func process(
        _ item: WorkItem, reader: borrowing DirectoryReader, state: CrawlState,
        beforeListing: (@Sendable (FileDescriptor) -> Int32)?, rootDevice: UInt64?, isOwner: Bool = false
    ) {
        var result = CrawlResult(
            crawlIndex: item.crawlIndex, listing: DirectoryListing(), watch: WatchOutcome.notRequested,
            outcome: .listed,
            isComplete: true,
            unstatable: [], openedStatus: nil)
        let descriptor: FileDescriptor
        do {
            descriptor = try item.source.open()
        } catch .noSuchFileOrDirectory, .notDirectory, .tooManySymbolicLinks {
            result.outcome = .vanished
            return state.publish(result, children: [], finishing: true, isOwner: isOwner)
        } catch {
            result.outcome = .unreadable(error)
            return state.publish(result, children: [], finishing: true, isOwner: isOwner)
        }
        let owned = SharedDescriptor(descriptor, owned: item.source.isOwned)
        if let beforeListing { result.watch = beforeListing(descriptor) }
        // Stat'ed after the watch is added: an entry made before this is in the size, one made
        // after raises an event. The parent's listing stat'ed it earlier, before any watch.
        if item.source.isOwned || beforeListing != nil {
            do {
                result.openedStatus = try descriptor.status()
            } catch {
                result.outcome = .unreadable(error)
                return state.publish(result, children: [], finishing: true, isOwner: isOwner)
            }
        }
        while true {
            var problems = DirectoryReader.Problems()
            var more = false
            do throws(Errno) {
                more = try reader.listMore(descriptor, into: &result.listing, problems: &problems) {
                    state.nextCrawlIndex()
                }
            } catch {
                result.outcome = .unreadable(error)
            }
            result.unstatable = problems.unstatable
            if !result.searchDenied, problems.unstatable.contains(where: { $0.error == .permissionDenied }) {
                result.searchDenied = !Self.maySearch(descriptor)
            }
            result.isComplete = !more
            if let rootDevice {
                result.listing.entries.removeAll { $0.status.kind == .directory && $0.status.device != rootDevice }
            }
            if let chain = item.ancestors {
                // du skips a directory that is one of its own ancestors (a bind mount of an
                // ancestor below it) without a word: nothing of it is counted, not even its inode.
                result.listing.entries.removeAll { entry in
                    entry.status.kind == .directory
                        && chain.contains(DirectoryIdentity(device: entry.status.device, inode: entry.status.inode))
                }
            }
            var children: [WorkItem] = []
            for entry in result.listing.entries where entry.status.kind == .directory {
                let identity = DirectoryIdentity(device: entry.status.device, inode: entry.status.inode)
                children.append(
                    WorkItem(
                        crawlIndex: entry.crawlIndex, source: .child(owned, Array(result.listing.name(of: entry))),
                        ancestors: AncestorChain(identity, parent: item.ancestors)))
            }
            state.publish(result, children: children, finishing: !more, isOwner: isOwner)
            if !more { return }
            result.listing = DirectoryListing()
            result.watch = WatchOutcome.notRequested
            result.openedStatus = nil
        }
    }

    /// Whether names in the open directory may be looked up: resolving "." in it needs the
    /// search permission that every stat of an entry needs.
    static func maySearch(_ directory: FileDescriptor) -> Bool {
        do {
            _ = try directory.status(of: [UInt8(ascii: ".")])
            return true
        } catch .permissionDenied {
            return false
        } catch {
            return true
        }
    }
}

/// A directory still to be listed: the root as given, or a name under an open parent.
struct WorkItem: Sendable {
    var crawlIndex: UInt32
    var source: Source
    /// The directory itself and everything above it, for cycle checks of its subdirectories.
    var ancestors: AncestorChain?

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

/// A directory's device and inode: what a bind mount shows twice.
public struct DirectoryIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// A directory and its ancestors, innermost first, shared by all the work items below it, so
/// a cycle check costs the depth and no copy.
final class AncestorChain: Sendable {
    let identity: DirectoryIdentity
    let parent: AncestorChain?

    init(_ identity: DirectoryIdentity, parent: AncestorChain?) {
        self.identity = identity
        self.parent = parent
    }

    func contains(_ candidate: DirectoryIdentity) -> Bool {
        var link: AncestorChain? = self
        while let current = link {
            if current.identity == candidate { return true }
            link = current.parent
        }
        return false
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
///
/// Waking a thread costs a context switch, which for a directory of ten files costs more than
/// listing it; so nobody is woken unless it waits, and a helper stopped by a full backlog
/// waits until the owner has drained half of it.
final class CrawlState: Sendable {
    private struct Shared {
        var work: [WorkItem] = []
        var results: [CrawlResult] = []
        var resultsHead = 0
        var unfinished = 0
        var ownerWaits = false
        var helpersWaitingForWork = 0
        var helpersWaitingForRoom = 0

        var backlog: Int { results.count - resultsHead }
    }

    private let shared = BlockingState(Shared())
    private let crawlIndexes = Atomic<UInt32>(1)
    /// Listings waiting for the tree's owner. Helpers pause past this many, so a slow owner
    /// costs at most this many listings of memory instead of the whole tree's.
    private static let maximumBacklog = 64

    enum OwnerStep: Sendable {
        case result(CrawlResult)
        case work(WorkItem)
        case done
    }

    func nextCrawlIndex() -> UInt32 {
        crawlIndexes.add(1, ordering: .relaxed).oldValue
    }

    func push(_ item: WorkItem) {
        shared.withLock { shared in
            shared.work.append(item)
            shared.unfinished += 1
        }
    }

    /// For helper threads: the next directory to list, or nil once the whole tree is done.
    func pop() -> WorkItem? {
        var waiting = false
        // nil: wait for work; .some(nil): the tree is done.
        let item = shared.wait { shared -> WorkItem?? in
            if waiting {
                shared.helpersWaitingForWork -= 1
                waiting = false
            }
            if let item = shared.work.popLast() { return item }
            if shared.unfinished == 0 { return .some(nil) }
            shared.helpersWaitingForWork += 1
            waiting = true
            return nil
        }
        return item ?? nil
    }

    /// For the owner: a waiting result first (it unblocks helpers and frees memory), else a
    /// directory to list itself, else wait for a helper.
    func nextForOwner() -> OwnerStep {
        var wakeHelpers = false
        let step = shared.wait { shared -> OwnerStep? in
            shared.ownerWaits = false
            if shared.resultsHead < shared.results.count {
                let result = shared.results[shared.resultsHead]
                shared.resultsHead += 1
                if shared.resultsHead == shared.results.count {
                    shared.results.removeAll(keepingCapacity: true)
                    shared.resultsHead = 0
                }
                wakeHelpers = shared.helpersWaitingForRoom > 0 && shared.backlog <= Self.maximumBacklog / 2
                return .result(result)
            }
            if let item = shared.work.popLast() { return .work(item) }
            if shared.unfinished == 0 {
                wakeHelpers = shared.helpersWaitingForWork > 0
                return .done
            }
            shared.ownerWaits = true
            return nil
        }
        if wakeHelpers { shared.wakeWaiters() }
        return step ?? .done
    }

    /// Publishes part of a directory's listing before the subdirectories in it become work,
    /// which is what puts every parent's listing ahead of its children's. Helpers wait while
    /// the backlog is full; the owner never does, since it is the one who drains it.
    func publish(_ result: CrawlResult, children: [WorkItem], finishing: Bool, isOwner: Bool) {
        var waiting = false
        let wake = shared.wait { shared -> Bool? in
            if waiting {
                shared.helpersWaitingForRoom -= 1
                waiting = false
            }
            if !isOwner && shared.backlog >= Self.maximumBacklog {
                shared.helpersWaitingForRoom += 1
                waiting = true
                return nil
            }
            shared.results.append(result)
            shared.work.append(contentsOf: children.reversed())
            shared.unfinished += children.count - (finishing ? 1 : 0)
            let wakeHelpers = shared.helpersWaitingForWork > 0 && (!children.isEmpty || shared.unfinished == 0)
            return shared.ownerWaits || wakeHelpers
        }
        if wake == true { shared.wakeWaiters() }
    }
}
