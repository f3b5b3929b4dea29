import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

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
