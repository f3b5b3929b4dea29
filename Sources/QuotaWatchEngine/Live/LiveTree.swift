import QuotaWatchCore

/// Counters that `status --json` reports under `"engine"`.
public struct EngineCounters: Sendable, Equatable {
    /// inotify events read.
    public var events: UInt64 = 0
    /// Directories listed since the first crawl finished.
    public var rescannedDirectories: UInt64 = 0
    public var overflows: UInt64 = 0

    public init() {}
}

/// A name in a directory of the tree, waiting to be stat'ed.
struct PendingName: Hashable {
    var directory: DirectoryID
    var name: [UInt8]
}

/// The tally tree kept exact from inotify events: the engine's single-threaded heart.
///
/// Events only say *that* something changed; `LiveTree` turns each into O(depth) work on the
/// tree, asking the file system for the current status of what changed. File changes are
/// collected and stat'ed once per settle period, however many events they caused.
/// Directories are listed only when new, moved in from outside, made readable again, or
/// during recovery.
public struct LiveTree<FileSystem: LiveFileSystem> {
    public private(set) var tree: TallyTree
    public var fileSystem: FileSystem
    public private(set) var counters = EngineCounters()

    /// Set by a queue overflow: events were lost, so only a fresh crawl can be trusted.
    public private(set) var needsResync = false
    /// Set when the root itself was deleted or moved away.
    public private(set) var rootIsGone = false
    /// Names of sync markers whose creation has been seen, oldest first.
    public private(set) var markersSeen: [[UInt8]] = []

    /// Files are re-stat'ed this long after their last write, since allocation can still
    /// change after close (delayed allocation, preallocation trimming).
    public var lateRestatDelay: UInt64 = 3_000_000_000
    /// How long a `moved_from` waits for its `moved_to` before it counts as a move out.
    public var moveWindow: UInt64 = 50_000_000
    /// Names in the root starting with this are the engine's own sync markers.
    public let markerPrefix: [UInt8]
    /// A watch on the root's parent, for the root's own deletion: while the engine holds the
    /// root open, the kernel holds back the root's IN_DELETE_SELF until it lets go.
    public var rootParent: (watch: Int32, rootName: [UInt8])?

    var directoryByWatch: [Int32: DirectoryID] = [:]
    var inTransit: [UInt32: Transit] = [:]
    var pendingNames: Set<PendingName> = []
    var pendingDirectories: Set<DirectoryID> = []
    /// Names whose directory could not be opened at its path in the tree, because a rename of
    /// it is still on its way through the queue; retried after the next events, with a count.
    var deferredNames: [PendingName: Int] = [:]
    var deferredDirectories: [DirectoryID: Int] = [:]
    var deferredReadabilityChecks: [DirectoryID: Int] = [:]
    /// A name deferred this many times means the tree lost track: recover with a fresh crawl.
    let deferralLimit = 500
    /// Each recently written file's latest deadline for its late re-stat, and the same in
    /// order of deadline: the delay is constant, so appending keeps the queue sorted and the
    /// next deadline is its head. An entry superseded by a later write is skipped when popped.
    var lateRestats: [PendingName: UInt64] = [:]
    var lateRestatQueue: [(deadline: UInt64, name: PendingName)] = []
    var lateRestatHead = 0
    var unreadable: Set<DirectoryID> = []
    var unwatched: Set<DirectoryID> = []

    /// An entry whose `moved_from` was seen, parked under a name no real file can have.
    struct Transit {
        var entry: TreeEntry?
        var parent: DirectoryID
        var parkedName: [UInt8]
        var originalName: [UInt8]
        var since: UInt64
    }

    /// Starts from a finished first crawl.
    public init(tree: TallyTree, crawl: CrawlReport, fileSystem: FileSystem, markerPrefix: [UInt8]) {
        self.tree = tree
        self.fileSystem = fileSystem
        self.markerPrefix = markerPrefix
        register(crawl)
    }

    // MARK: What the engine reports

    public var watchCount: Int { directoryByWatch.count }

    public func directory(forWatch watch: Int32) -> DirectoryID? { directoryByWatch[watch] }

    /// The topmost directories without a watch, which are polled instead.
    public var degradedDirectories: [DirectoryID] {
        unwatched.filter { directory in
            guard let parent = tree.parent(of: directory) else { return true }
            return !unwatched.contains(parent)
        }.sorted()
    }

    public var hasPendingWork: Bool {
        !pendingNames.isEmpty || !pendingDirectories.isEmpty || !deferredNames.isEmpty || !deferredDirectories.isEmpty
            || !deferredReadabilityChecks.isEmpty
    }

    /// The earliest moment a timer of the tree's is due, if any.
    public var nextDeadline: UInt64? {
        let moves = inTransit.values.map { $0.since + moveWindow }.min()
        let restats = lateRestatHead < lateRestatQueue.count ? lateRestatQueue[lateRestatHead].deadline : nil
        return [moves, restats].compactMap { $0 }.min()
    }

    // MARK: Events

    public mutating func apply(_ events: [InotifyEvent], now: UInt64) {
        for event in events { apply(event, now: now) }
    }

    public mutating func apply(_ event: InotifyEvent, now: UInt64) {
        counters.events += 1
        if event.mask.contains(.queueOverflow) {
            needsResync = true
            counters.overflows += 1
            return
        }
        if let rootParent, event.watch == rootParent.watch {
            if event.name == rootParent.rootName && !event.mask.isDisjoint(with: [.delete, .movedFrom]) {
                rootIsGone = true
            }
            return
        }
        guard let directory = directoryByWatch[event.watch] else { return }
        if event.mask.contains(.ignored) {
            directoryByWatch.removeValue(forKey: event.watch)
            if tree.contains(directory) && tree.watch(of: directory) == event.watch { tree.setWatch(-1, of: directory) }
            return
        }
        if event.mask.contains(.deleteSelf) || event.mask.contains(.moveSelf) {
            if directory == tree.root { rootIsGone = true }
            return
        }
        guard tree.contains(directory) else { return }
        if event.name.isEmpty {
            pendingDirectories.insert(directory)
            if event.mask.contains(.attrib) { checkReadability(of: directory) }
            return
        }
        if directory == tree.root && event.name.starts(with: markerPrefix) {
            if event.mask.contains(.create) { markersSeen.append(event.name) }
            return
        }
        if unreadable.contains(directory) {
            pendingDirectories.insert(directory)
            return
        }
        let name = event.name
        if event.mask.contains(.movedFrom) {
            beginMove(cookie: event.cookie, from: directory, name: name, now: now)
            pendingDirectories.insert(directory)
        } else if event.mask.contains(.movedTo) {
            finishMove(cookie: event.cookie, to: directory, name: name, isDirectory: event.mask.contains(.isDirectory))
            pendingDirectories.insert(directory)
        } else if event.mask.contains(.delete) {
            removeEntry(named: name, in: directory)
            pendingDirectories.insert(directory)
        } else if event.mask.contains(.isDirectory) {
            if event.mask.contains(.create) {
                createDirectory(named: name, in: directory)
                pendingDirectories.insert(directory)
            } else if event.mask.contains(.attrib), case .directory(let child)? = tree.entry(named: name, in: directory)
            {
                checkReadability(of: child)
                pendingDirectories.insert(child)
            }
        } else {
            let pending = PendingName(directory: directory, name: name)
            pendingNames.insert(pending)
            if event.mask.contains(.create) { pendingDirectories.insert(directory) }
            if event.mask.contains(.modify) || event.mask.contains(.closeWrite) {
                lateRestats[pending] = now + lateRestatDelay
                lateRestatQueue.append((now + lateRestatDelay, pending))
            }
        }
    }

    public mutating func noteRootGone() { rootIsGone = true }

    public mutating func acknowledgeMarker(_ name: [UInt8]) {
        markersSeen.removeAll { $0 == name }
    }

    // MARK: Timers and flushing

    /// Stats every name and directory that changed since the last flush.
    public mutating func flush() {
        var names = pendingNames
        pendingNames.removeAll(keepingCapacity: true)
        let deferred = deferredNames
        deferredNames.removeAll()
        names.formUnion(deferred.keys)
        for pending in names where !refresh(pending) {
            let attempts = deferred[pending, default: 0] + 1
            if attempts > deferralLimit {
                needsResync = true
            } else {
                deferredNames[pending] = attempts
            }
        }
        let readabilityChecks = deferredReadabilityChecks
        for (directory, attempts) in readabilityChecks {
            guard tree.contains(directory) else {
                deferredReadabilityChecks.removeValue(forKey: directory)
                continue
            }
            if attempts > deferralLimit { needsResync = true }
            checkReadability(of: directory)
        }
        let directories = pendingDirectories
        pendingDirectories.removeAll(keepingCapacity: true)
        let deferredSelves = deferredDirectories
        deferredDirectories.removeAll()
        for directory in directories.union(deferredSelves.keys) where tree.contains(directory) {
            switch fileSystem.status(of: directory, tree: tree) {
            case .found(let status) where status.kind == .directory:
                tree.updateDirectory(directory, status: status)
                if directory == tree.root && status.linkCount == 0 { rootIsGone = true }
            case .directoryUnavailable:
                let attempts = deferredSelves[directory, default: 0] + 1
                if attempts > deferralLimit { needsResync = true } else { deferredDirectories[directory] = attempts }
            default:
                break
            }
        }
    }

    /// Runs the timers that are due: unpaired moves become removals, quiet files get their
    /// late re-stat.
    public mutating func runTimers(now: UInt64) {
        for (cookie, transit) in inTransit where transit.since + moveWindow <= now {
            inTransit.removeValue(forKey: cookie)
            dropParked(transit)
        }
        while lateRestatHead < lateRestatQueue.count, lateRestatQueue[lateRestatHead].deadline <= now {
            let (deadline, pending) = lateRestatQueue[lateRestatHead]
            lateRestatHead += 1
            if lateRestats[pending] == deadline {
                lateRestats.removeValue(forKey: pending)
                pendingNames.insert(pending)
            }
        }
        if lateRestatHead > 1024 && lateRestatHead * 2 > lateRestatQueue.count {
            lateRestatQueue.removeFirst(lateRestatHead)
            lateRestatHead = 0
        }
    }

    /// Brings everything up to date for a sync: moves still unpaired after the marker are
    /// moves out of the root, and recently written files are re-stat'ed now.
    public mutating func settleForSync() {
        for transit in inTransit.values { dropParked(transit) }
        inTransit.removeAll()
        for pending in lateRestats.keys { pendingNames.insert(pending) }
        // A write through a hard link outside the root raises no event here: re-stat one
        // name of every inode with several names.
        for file in tree.oneNamePerLinkedInode() {
            pendingNames.insert(
                PendingName(directory: tree.directory(containing: file), name: Array(tree.name(of: file))))
        }
        pendingDirectories.insert(tree.root)
        // An unreadable directory may have no watch of its own to say that it grew.
        pendingDirectories.formUnion(unreadable)
        pollDegraded()
        flush()
        relistLostDirectories()
    }

    /// At a sync every queued event has been applied, so a directory whose path still leads
    /// elsewhere is not waiting for a rename: an event went to the wrong record (a name stat'ed
    /// after it had been reused). List each such directory again from its name, shallowest first.
    private mutating func relistLostDirectories() {
        var lost = Set(deferredDirectories.keys)
        lost.formUnion(deferredNames.keys.map(\.directory))
        lost.formUnion(deferredReadabilityChecks.keys)
        guard !lost.isEmpty else { return }
        deferredDirectories.removeAll()
        deferredReadabilityChecks.removeAll()
        for directory in lost.sorted(by: { tree.depth(of: $0) < tree.depth(of: $1) }) {
            guard tree.contains(directory), let parent = tree.parent(of: directory) else { continue }
            if case .found = fileSystem.status(of: directory, tree: tree) { continue }
            let name = Array(tree.name(of: directory))
            removeDirectory(directory)
            createDirectory(named: name, in: parent)
        }
        flush()
    }

    /// Re-lists the subtrees that have no watch, so their totals stay exact.
    public mutating func pollDegraded() {
        for directory in degradedDirectories where tree.contains(directory) {
            clearContents(of: directory)
            let report = fileSystem.crawl(directory, tree: &tree)
            pendingDirectories.insert(directory)
            unwatched.remove(directory)
            register(report)
            if report.failed { unwatched.insert(directory) }
            counters.rescannedDirectories += UInt64(report.listed)
        }
    }

    /// Replaces the tree with a fresh crawl after an overflow. Returns the directories listed,
    /// or nil when the root could not be crawled.
    public mutating func resync() -> Int? {
        guard let (fresh, report) = fileSystem.crawlRoot() else { return nil }
        let oldWatches = directoryByWatch
        directoryByWatch.removeAll()
        tree = fresh
        inTransit.removeAll()
        pendingNames.removeAll()
        pendingDirectories.removeAll()
        deferredNames.removeAll()
        deferredDirectories.removeAll()
        deferredReadabilityChecks.removeAll()
        lateRestats.removeAll()
        lateRestatQueue.removeAll()
        lateRestatHead = 0
        unreadable.removeAll()
        unwatched.removeAll()
        register(report)
        for watch in oldWatches.keys where directoryByWatch[watch] == nil { fileSystem.removeWatch(watch) }
        counters.rescannedDirectories += UInt64(report.listed)
        needsResync = false
        return report.listed
    }

    // MARK: Internals

    private mutating func register(_ report: CrawlReport) {
        for (watch, directory) in report.watches where tree.contains(directory) {
            if let known = directoryByWatch[watch], known != directory, tree.contains(known),
                tree.inode(of: known) == tree.inode(of: directory), adopt(known, asCopy: directory)
            {
                continue
            }
            directoryByWatch[watch] = directory
        }
        unreadable.formUnion(report.unreadable.filter { tree.contains($0) })
        unwatched.formUnion(report.unwatched.filter { tree.contains($0) })
    }

    /// inotify handed back the watch of a directory already in the tree: the crawl found, under
    /// a new name, a directory whose move events are still queued (or were never seen). One
    /// directory gets one record: the known one, which its events have kept current, takes the
    /// new place and the fresh copy goes. False if that cannot be done safely.
    private mutating func adopt(_ known: DirectoryID, asCopy copy: DirectoryID) -> Bool {
        guard let parent = tree.parent(of: copy), !tree.isDescendant(parent, of: known) else { return false }
        let name = Array(tree.name(of: copy))
        let oldPlace = tree.parent(of: known).map { PendingName(directory: $0, name: Array(tree.name(of: known))) }
        removeDirectory(copy)
        tree.moveDirectory(known, to: parent, named: name)
        pendingDirectories.insert(known)
        // Whatever now has the known record's old name (another directory that took the name
        // before its events were applied, say) is looked at afresh. Parked names are not real.
        if let oldPlace, oldPlace.name.first != 0 { pendingNames.insert(oldPlace) }
        return true
    }

    /// Brings one name up to date; false when its directory could not be opened yet.
    private mutating func refresh(_ pending: PendingName) -> Bool {
        let directory = pending.directory
        guard tree.contains(directory), !unreadable.contains(directory) else { return true }
        let existing = tree.entry(named: pending.name, in: directory)
        switch fileSystem.status(of: pending.name, in: directory, tree: tree) {
        case .directoryUnavailable:
            return false
        case .permissionDenied:
            markUnreadable(directory)
        case .missing:
            if case .file(let file)? = existing { tree.removeFile(file) }
        case .found(let status) where status.kind == .directory:
            if case .file(let file)? = existing { tree.removeFile(file) }
            if case .directory? = existing { return true }
            createDirectory(named: pending.name, in: directory)
        case .found(let status):
            switch existing {
            case .file(let file)?: tree.updateFile(file, status: status)
            case .directory(let child)?:
                removeDirectory(child)
                tree.addFile(named: pending.name, in: directory, status: status)
            case nil: tree.addFile(named: pending.name, in: directory, status: status)
            }
        }
        return true
    }

    private mutating func createDirectory(named name: [UInt8], in parent: DirectoryID) {
        switch tree.entry(named: name, in: parent) {
        case .directory?: return
        case .file(let file)?: tree.removeFile(file)
        case nil: break
        }
        let status: FileStatus
        switch fileSystem.status(of: name, in: parent, tree: tree) {
        case .missing: return
        case .permissionDenied:
            markUnreadable(parent)
            return
        case .directoryUnavailable:
            deferredNames[PendingName(directory: parent, name: name), default: 0] += 1
            return
        case .found(let found): status = found
        }
        guard status.kind == .directory else {
            pendingNames.insert(PendingName(directory: parent, name: name))
            return
        }
        let directory = tree.addDirectory(named: name, in: parent, status: status)
        let report = fileSystem.crawl(directory, tree: &tree)
        if report.failed {
            // Renamed or removed between the stat and the open: try again after more events.
            removeDirectory(directory)
            deferredNames[PendingName(directory: parent, name: name), default: 0] += 1
            return
        }
        register(report)
        counters.rescannedDirectories += UInt64(report.listed)
    }

    private mutating func removeEntry(named name: [UInt8], in directory: DirectoryID) {
        switch tree.entry(named: name, in: directory) {
        case .file(let file)?: tree.removeFile(file)
        case .directory(let child)?: removeDirectory(child)
        case nil: break
        }
    }

    private mutating func removeDirectory(_ directory: DirectoryID) {
        forgetSubtree(of: directory)
        tree.removeDirectory(directory)
    }

    /// Drops watches and handles for every directory in the subtree, before it leaves the tree.
    private mutating func forgetSubtree(of directory: DirectoryID, includingTop: Bool = true) {
        for member in tree.subtree(of: directory) where includingTop || member != directory {
            let watch = tree.watch(of: member)
            if watch >= 0, directoryByWatch[watch] == member {
                directoryByWatch.removeValue(forKey: watch)
                fileSystem.removeWatch(watch)
            }
            fileSystem.forget(member)
            unreadable.remove(member)
            unwatched.remove(member)
            pendingDirectories.remove(member)
        }
    }

    /// Empties a directory in the tree, keeping the directory itself.
    private mutating func clearContents(of directory: DirectoryID) {
        for child in tree.subdirectories(of: directory) { removeDirectory(child) }
        for file in tree.files(in: directory) { tree.removeFile(file) }
    }

    private mutating func checkReadability(of directory: DirectoryID) {
        switch fileSystem.readability(of: directory, tree: tree) {
        case .elsewhere:
            // Asked at a stale path: ask again once the queued rename is applied.
            deferredReadabilityChecks[directory, default: 0] += 1
        case .readable:
            deferredReadabilityChecks.removeValue(forKey: directory)
            guard unreadable.contains(directory) else { return }
            unreadable.remove(directory)
            clearContents(of: directory)
            let report = fileSystem.crawl(directory, tree: &tree)
            register(report)
            counters.rescannedDirectories += UInt64(report.listed)
        case .unreadable:
            deferredReadabilityChecks.removeValue(forKey: directory)
            markUnreadable(directory)
        }
    }

    /// du cannot list it any more, so it counts the directory's own inode only. A chmod that
    /// makes it readable again comes as an attribute event, which lists it anew.
    private mutating func markUnreadable(_ directory: DirectoryID) {
        guard !unreadable.contains(directory) else { return }
        clearContents(of: directory)
        unreadable.insert(directory)
        pendingDirectories.insert(directory)
    }

    private mutating func beginMove(cookie: UInt32, from directory: DirectoryID, name: [UInt8], now: UInt64) {
        // A NUL byte cannot occur in a real name, so the parked name collides with nothing.
        var parkedName: [UInt8] = [0]
        withUnsafeBytes(of: cookie.littleEndian) { parkedName.append(contentsOf: $0) }
        let entry = tree.entry(named: name, in: directory)
        switch entry {
        case .file(let file)?: tree.moveFile(file, to: directory, named: parkedName)
        case .directory(let child)?: tree.moveDirectory(child, to: directory, named: parkedName)
        case nil: break
        }
        if let previous = inTransit.updateValue(
            Transit(entry: entry, parent: directory, parkedName: parkedName, originalName: name, since: now),
            forKey: cookie)
        {
            dropParked(previous)
        }
    }

    private mutating func finishMove(cookie: UInt32, to directory: DirectoryID, name: [UInt8], isDirectory: Bool) {
        let transit = inTransit.removeValue(forKey: cookie)
        if unreadable.contains(directory) {
            if let transit { dropParked(transit) }
            return
        }
        removeEntry(named: name, in: directory)
        if let transit,
            let deadline = lateRestats.removeValue(
                forKey: PendingName(directory: transit.parent, name: transit.originalName))
        {
            // The file keeps its pending late re-stat under its new name.
            let renamed = PendingName(directory: directory, name: name)
            lateRestats[renamed] = deadline
            lateRestatQueue.append((deadline, renamed))
        }
        if let transit, let entry = transit.entry, isStillParked(transit) {
            switch entry {
            case .file(let file):
                tree.moveFile(file, to: directory, named: name)
                pendingNames.insert(PendingName(directory: directory, name: name))
            case .directory(let child):
                guard !tree.isDescendant(directory, of: child) else {
                    // The tree places the target inside the directory being moved there, which
                    // the kernel never allows: a record is out of date in a way no queued event
                    // will mend. Only a fresh crawl can be trusted now.
                    needsResync = true
                    return
                }
                tree.moveDirectory(child, to: directory, named: name)
                pendingDirectories.insert(child)
            }
        } else if isDirectory {
            // Moved in from outside the root (or from a directory we could not see): list it once.
            createDirectory(named: name, in: directory)
        } else {
            pendingNames.insert(PendingName(directory: directory, name: name))
        }
    }

    private func isStillParked(_ transit: Transit) -> Bool {
        guard tree.contains(transit.parent), let entry = transit.entry else { return false }
        return tree.entry(named: transit.parkedName, in: transit.parent) == entry
    }

    /// A parked entry whose `moved_to` never came left the root.
    private mutating func dropParked(_ transit: Transit) {
        guard isStillParked(transit), let entry = transit.entry else { return }
        switch entry {
        case .file(let file): tree.removeFile(file)
        case .directory(let child): removeDirectory(child)
        }
    }
}
