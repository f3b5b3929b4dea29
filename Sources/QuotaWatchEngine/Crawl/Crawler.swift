import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// What one crawled directory yields, in one or more parts: a large directory is handed
/// over a buffer-full at a time.
package struct CrawlResult: Sendable {
    /// The crawl's number for this directory: 0 is the crawl's root; every other number was
    /// handed out in the parent's listing (``DirectoryListing/Entry/crawlIndex``).
    package var crawlIndex: UInt32
    package var listing: DirectoryListing
    /// What `beforeListing` returned for this directory (the engine's watch descriptor).
    package var watch: Int32
    package var outcome: Outcome
    /// False while more parts of this directory's listing follow.
    package var isComplete: Bool

    package enum Outcome: Sendable {
        case listed
        /// Opening or reading failed: counted like du, with the directory's own inode only.
        case unreadable(Errno)
        /// Gone, or replaced by something that is not a directory, before it could be opened.
        case vanished
    }

    /// Entries that were listed but could not be stat'ed.
    package var unstatable: [(name: [UInt8], error: Errno)]

    /// The directory's status read from the descriptor that was watched and listed, in the
    /// first part of a subdirectory's result. The parent's listing stat'ed the name a moment
    /// earlier; a rename over that name in between leaves the name holding another inode,
    /// and the record must describe the inode the watch and the listing are really about.
    package var openedStatus: FileStatus?
    /// The directory could be read but not searched (chmod 644): its names were listed, none
    /// could be stat'ed, and, as du does, it counts as its own inode alone.
    package var searchDenied = false
}

package struct CrawlOptions: Sendable {
    package var workers: Int
    /// Do not descend into, nor count, directories on another file system (du -x).
    package var oneFileSystem: Bool

    /// One per processor, at least 2. Counted once: Foundation reads the cgroup's files for it
    /// each time, and every root's options start from this default.
    package static let defaultWorkers = max(2, ProcessInfo.processInfo.activeProcessorCount)

    package init(workers: Int = Self.defaultWorkers, oneFileSystem: Bool = false) {
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
package struct Crawler: Sendable {
    package var options: CrawlOptions

    package init(options: CrawlOptions = CrawlOptions()) { self.options = options }

    /// Crawls below `root`, which stays open and owned by the caller.
    /// `beforeListing` runs with each directory's descriptor before the directory is read:
    /// the engine adds its inotify watch there, so nothing created during the listing is missed.
    /// `ancestors` are the (device, inode) pairs of `root` itself and of every directory above
    /// it that the caller counts: a subdirectory that is one of them (a bind mount of an
    /// ancestor below itself) is a cycle, and is skipped as du skips it.
    package func crawl(
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
        // The ancestors below are told apart by identity: this directory's own is the inode it
        // opened. The parent's listing stat'ed the name a moment earlier, and a directory
        // renamed away from the name in between and then moved inside the one now holding it
        // would look like a cycle with that stale identity, and be left out.
        var ancestors = item.ancestors
        if let opened = result.openedStatus, let chain = ancestors {
            let identity = DirectoryIdentity(device: opened.device, inode: opened.inode)
            if chain.identity != identity { ancestors = AncestorChain(identity, parent: chain.parent) }
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
            if let chain = ancestors {
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
                        ancestors: AncestorChain(identity, parent: ancestors)))
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
