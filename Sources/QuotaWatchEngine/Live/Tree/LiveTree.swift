import QuotaWatchCore

/// Counters that `status --json` reports under `"engine"`.
package struct EngineCounters: Sendable, Equatable {
    /// inotify events read.
    package var events: UInt64 = 0
    /// Directories listed since the first crawl finished.
    package var rescannedDirectories: UInt64 = 0
    package var overflows: UInt64 = 0

    package init() {}
}

/// The kinds `apply` tests every change against, made once: an option-set literal in the loop
/// went through the unspecialized `SetAlgebra.init(arrayLiteral:)` for every event, a tenth of
/// the daemon's CPU in a burst (perf, 2026-12-03).
extension ChangeKind {
    static let nameLeft: ChangeKind = [.removed, .movedFrom]
    static let selfLeft: ChangeKind = [.selfRemoved, .selfMoved]
    static let contentsWritten: ChangeKind = [.modified, .closedAfterWrite, .created]
}

/// The tally tree kept exact from a backend's changes (``FileSystemChange``): the engine's
/// single-threaded heart.
///
/// Changes only say *that* something changed; `LiveTree` turns each into O(depth) work on the
/// tree, asking the file system for the current status of what changed. File changes are
/// collected and stat'ed once per settle period, however many events they caused.
/// Directories are listed only when new, moved in from outside, made readable again, or
/// during recovery.
package struct LiveTree<FileSystem: LiveFileSystem> {
    package internal(set) var tree: TallyTree
    package var fileSystem: FileSystem
    package internal(set) var counters = EngineCounters()

    /// Set by a queue overflow: events were lost, so only a fresh crawl can be trusted.
    package internal(set) var needsResync = false
    /// Set when the root itself was deleted or moved away.
    package internal(set) var rootIsGone = false
    /// Names of sync markers whose creation has been seen, oldest first.
    package internal(set) var markersSeen: [[UInt8]] = []

    /// Files are re-stat'ed this long after their last write, since allocation can still
    /// change after close (delayed allocation, preallocation trimming).
    package var lateRestatDelay: UInt64 = 3_000_000_000
    /// After its late re-stat, a file is re-stat'ed once more this much later: writeback can
    /// still add a block with no event (ext4 gives a file with more extents than its inode holds
    /// an extent-tree block when it writes the data back, up to `vm.dirty_expire_centisecs`,
    /// 30 s, plus one writeback period after the write).
    package var writebackRestatDelay: UInt64 = 32_000_000_000
    /// How long a `moved_from` waits for its `moved_to` before it counts as a move out.
    package var moveWindow: UInt64 = 50_000_000
    /// Names in the root starting with this are the engine's own sync markers.
    package let markerPrefix: [UInt8]
    /// A watch on the root's parent, for the root's own deletion: while the engine holds the
    /// root open, the kernel holds back the root's IN_DELETE_SELF until it lets go.
    package var rootParent: (watch: Int32, rootName: [UInt8])?
    /// Devices of overlayfs mounts (from the mount table): an event in a directory on one may
    /// come with a copy-up that changed the blocks of that directory and of those above it on
    /// the overlay, with no event of their own (``MountEntry/copyUpDevices(in:)``).
    package var copyUpDevices: Set<UInt64> = []

    /// Whether a sync re-stats one name of every inode with several names, for writes through
    /// names outside the root that raise no event in it. The fanotify backend reports those
    /// writes by the inode (``fileChanged(device:inode:now:)``) and turns this off.
    package var restatsLinkedInodesAtSync = true

    var directoryByWatch: [Int32: DirectoryID] = [:]
    /// The other records of a watch: one directory shown at several places by bind mounts
    /// has one inode, so inotify gives all of them the one watch (LiveTree+Mounts.swift).
    var otherPlacesByWatch: [Int32: [DirectoryID]] = [:]
    /// Leave out directories on another file system than the root's (`--one-file-system`).
    package var oneFileSystem = false
    /// Set by `IN_UNMOUNT`: the engine reads the mount table again.
    package internal(set) var mountTableMayHaveChanged = false
    /// Moves by cookie and by which record of the watch they are for (`place << 32 | cookie`),
    /// so that the records of one directory at two places each keep their own move.
    var inTransit: [UInt64: Transit] = [:]
    /// The same moves in the order they began, for their timeouts (the window is constant,
    /// so this is deadline order); finished ones are skipped when they reach the head.
    var transitQueue = OrderedTimerQueue<(since: UInt64, cookie: UInt64)>()
    /// Entries a `moved_to` landed on, by the place they left, until it is clear whether they
    /// were renamed over or swapped by an exchange (LiveTree+Exchanges.swift).
    var displaced: [PendingName: Displaced] = [:]
    var pendingNames = PendingNames()
    var pendingDirectories: Set<DirectoryID> = []
    /// Names whose directory could not be opened at its path in the tree, because a rename of
    /// it is still on its way through the queue; retried after the next events, with a count.
    var deferredNames: [PendingName: Int] = [:]
    var deferredDirectories: [DirectoryID: Int] = [:]
    /// Directories whose own place was empty at a flush: looked at again at the next sync.
    var missingSinceSync: Set<DirectoryID> = []
    var deferredReadabilityChecks: [DirectoryID: Int] = [:]
    /// Directories listed without a watch (``CrawlReport/watchFailed``), listed again at the
    /// next flush, with a count: past ``deferralLimit`` one is polled like an unwatched one.
    var watchRetries: [DirectoryID: Int] = [:]
    /// A name deferred this many times means the tree lost track: recover with a fresh crawl.
    let deferralLimit = 500
    /// Recently written files' late and writeback re-stats, dropped when the name goes.
    var restats = RestatTimers()
    /// The latest `now` the engine passed in: files found by a crawl are timed from it.
    var latestNow: UInt64 = 0
    var unreadable: Set<DirectoryID> = []
    var unwatched: Set<DirectoryID> = []
    /// Unwatched directories that could not be listed for lack of descriptors.
    var shortOfDescriptors: Set<DirectoryID> = []
    /// Directories with a name (or their own status) the latest flush could not look at for
    /// lack of descriptors: retried at each flush, and until then reported as degraded, so
    /// that a sync never calls their totals exact. Made afresh by each flush.
    var starved: Set<DirectoryID> = []
    /// Directories added, renamed and removed, for the policy layer; nil when it has no rules.
    package internal(set) var structureChanges: StructureChanges?
    /// Directories whose re-stat'ed files go into the log (`files`): where the policy layer
    /// looks for leftovers.
    package var fileLogDirectories: Set<DirectoryID> = []
    /// The background verification sweep's progress; off until the engine sets it.
    package var verification = VerificationSweep(.off, now: 0)

    /// An entry whose `moved_from` was seen, parked under a name no real file can have.
    struct Transit {
        var entry: TreeEntry?
        var parent: DirectoryID
        var parkedName: [UInt8]
        var originalName: [UInt8]
        var since: UInt64
        /// The file's pending re-stats, which it keeps under its new name.
        var restats: RestatTimers.Owed?
    }

    /// Starts from a finished first crawl.
    package init(tree: TallyTree, crawl: CrawlReport, fileSystem: FileSystem, markerPrefix: [UInt8]) {
        self.tree = tree
        self.fileSystem = fileSystem
        self.markerPrefix = markerPrefix
        register(crawl)
    }

    // MARK: What the engine reports

    package var watchCount: Int { directoryByWatch.count }

    package func directory(forWatch watch: Int32) -> DirectoryID? { directoryByWatch[watch] }

    /// The topmost directories without a watch, which are polled instead.
    /// Whether any directory is polled: cheap enough to ask on every turn of the loop.
    package var hasUnwatchedDirectories: Bool { !unwatched.isEmpty }
    /// Whether some degraded subtree is so for lack of descriptors rather than of watches.
    package var isShortOfDescriptors: Bool {
        shortOfDescriptors.contains { tree.contains($0) } || starved.contains { tree.contains($0) }
    }

    /// The topmost subtrees without a watch, listed again at each poll.
    var polledDirectories: [DirectoryID] {
        unwatched.filter { directory in
            guard let parent = tree.parent(of: directory) else { return true }
            return !unwatched.contains(parent)
        }.sorted()
    }

    /// What the reports call degraded: the polled subtrees, and outside them the directories
    /// whose names wait for a descriptor (retried at each flush, not listed again: a listing
    /// would need the descriptors that are missing, and would drop the contents first).
    package var degradedDirectories: [DirectoryID] {
        let starvedAlone = starved.filter { tree.contains($0) && !isPolled($0) }
        guard !starvedAlone.isEmpty else { return polledDirectories }
        return Set(polledDirectories).union(starvedAlone).sorted()
    }

    /// Whether `directory` lies in a polled subtree (itself unwatched, or below one).
    private func isPolled(_ directory: DirectoryID) -> Bool {
        var current: DirectoryID? = directory
        while let next = current {
            if unwatched.contains(next) { return true }
            current = tree.parent(of: next)
        }
        return false
    }

    /// ``degradedDirectories`` as `status` and the `degraded` event name them: relative to the
    /// root and escaped, the root itself "." as in every report (a root of a daemon serving
    /// several can be the one left without a watch, when the others took the limit).
    package var degradedPaths: [String] {
        degradedDirectories.map { directory in
            let path = tree.relativePath(of: directory)
            return path.isEmpty ? "." : EscapedName.string(path)
        }
    }

    /// The directories that cannot be read, outermost first; what is inside them is not in
    /// the tally.
    package var unreadableDirectories: [DirectoryID] {
        unreadable.filter { tree.contains($0) }.sorted()
    }

    package var hasPendingWork: Bool {
        !pendingNames.isEmpty || !pendingDirectories.isEmpty || !deferredNames.isEmpty || !deferredDirectories.isEmpty
            || !deferredReadabilityChecks.isEmpty || !watchRetries.isEmpty
    }

    /// The earliest moment a timer of the tree's is due, if any.
    package var nextDeadline: UInt64? {
        [transitQueue.nextDeadline, restats.nextDeadline, nextDisplacedDeadline].compactMap { $0 }.min()
    }

    // MARK: Changes

    package mutating func apply(_ changes: [FileSystemChange], now: UInt64) {
        for change in changes {
            apply(change, now: now)
            checkConsistency(after: "change \(change)")
        }
        settleDisplaced()
        checkConsistency(after: "settling displaced directories")
    }

    package mutating func apply(_ change: FileSystemChange, now: UInt64) {
        counters.events += 1
        latestNow = now
        if change.kind.contains(.overflowed) {
            needsResync = true
            counters.overflows += 1
            return
        }
        if let rootParent, change.watch == rootParent.watch {
            if change.name == rootParent.rootName && !change.kind.isDisjoint(with: .nameLeft) {
                rootIsGone = true
            }
            // ROOT's parent bind-mounted below ROOT (`mount --bind a a/b/c`, ROOT a/b) is a
            // directory of the tree on this very watch: its events are the tree's too.
            guard directoryByWatch[change.watch] != nil else { return }
        }
        guard let directory = directoryByWatch[change.watch] else { return }
        if change.kind.contains(.forgotten) {
            forgetWatch(change.watch)
            return
        }
        if change.kind.contains(.unmounted) {
            // The file system this watch was on went away: the mount table says where.
            mountTableMayHaveChanged = true
            return
        }
        apply(change, to: directory, place: 0, now: now)
        if let others = otherPlacesByWatch[change.watch] {
            for (index, other) in others.enumerated() where holds(change.watch, other) {
                apply(change, to: other, place: index + 1, now: now)
            }
        }
    }

    /// One change for one record of its watch; `place` tells the records of one watch apart,
    /// so each keeps its own half of a move.
    mutating func apply(_ change: FileSystemChange, to directory: DirectoryID, place: Int, now: UInt64) {
        if !change.kind.isDisjoint(with: .selfLeft) {
            if directory == tree.root { rootIsGone = true }
            return
        }
        guard tree.contains(directory) else { return }
        if !copyUpDevices.isEmpty { restatCopiedUpDirectories(above: directory) }
        if change.name.isEmpty {
            pendingDirectories.insert(directory)
            if change.kind.contains(.attributes) { checkReadability(of: directory) }
            return
        }
        if directory == tree.root && change.name.starts(with: markerPrefix) {
            if change.kind.contains(.created) { markersSeen.append(change.name) }
            return
        }
        if unreadable.contains(directory) {
            pendingDirectories.insert(directory)
            return
        }
        let name = change.name
        let moveKey = UInt64(place) << 32 | UInt64(change.cookie)
        if change.kind.contains(.movedFrom) {
            beginMove(cookie: moveKey, from: directory, name: name, now: now)
            pendingDirectories.insert(directory)
        } else if change.kind.contains(.movedTo) {
            finishMove(cookie: moveKey, to: directory, name: name, isDirectory: change.isDirectory, now: now)
            pendingDirectories.insert(directory)
        } else if change.kind.contains(.removed) {
            removeEntry(named: name, in: directory)
            pendingDirectories.insert(directory)
        } else if change.isDirectory {
            if change.kind.contains(.created) {
                createDirectory(named: name, in: directory)
                pendingDirectories.insert(directory)
            } else if change.kind.contains(.attributes),
                case .directory(let child)? = tree.entry(named: name, in: directory)
            {
                checkReadability(of: child)
                pendingDirectories.insert(child)
            }
        } else {
            let pending = PendingName(directory: directory, name: name)
            // A new name may be a link to an inode written just before (a create has no
            // write of its own then), and its allocation can still change after writeback.
            if !change.kind.isDisjoint(with: .contentsWritten) {
                pendingNames.written(pending, at: now)
            } else {
                pendingNames.insert(pending)
            }
            if change.kind.contains(.created) { pendingDirectories.insert(directory) }
        }
    }

    /// A file changed through a name the events did not give (fanotify reports the write by
    /// the file's handle): every name the tree holds for the inode is stat'ed, and re-stat'ed
    /// late as a written file is. An inode the tree does not hold is none of its business.
    package mutating func fileChanged(device: UInt64, inode: UInt64, now: UInt64) {
        latestNow = now
        for file in tree.files(withInode: inode, device: device) {
            pendingNames.written(
                PendingName(directory: tree.directory(containing: file), name: Array(tree.name(of: file))), at: now)
        }
    }

    /// What `place` is owed, for an entry that leaves it (a move, an exchange): its timers, and
    /// a write not yet stat'ed, which would have been owed its late re-stat from its moment.
    mutating func takeOwedRestats(_ place: PendingName) -> RestatTimers.Owed? {
        var owed = restats.take(place)
        if let writtenAt = pendingNames.takeWrite(of: place) {
            owed = RestatTimers.Owed(late: writtenAt + lateRestatDelay, writeback: owed?.writeback)
        }
        return owed
    }

    package mutating func noteRootGone() { rootIsGone = true }

    package mutating func acknowledgeMarker(_ name: [UInt8]) {
        markersSeen.removeAll { $0 == name }
    }
}
