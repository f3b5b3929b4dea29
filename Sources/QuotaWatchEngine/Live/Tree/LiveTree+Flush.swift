import QuotaWatchCore

/// Turning pending changes into stats, timers, syncs, polling and recovery.
extension LiveTree {
    /// Stats every name and directory that changed since the last flush.
    package mutating func flush() {
        var names = pendingNames.takeAll()
        // Every name and directory deferred for lack of descriptors is tried again below.
        starved.removeAll()
        let deferred = deferredNames
        deferredNames.removeAll()
        names.formUnion(deferred.keys)
        var owedLate: [(name: PendingName, deadline: UInt64)] = []
        for (pending, writtenAt) in names {
            let outcome = refresh(pending)
            checkConsistency(
                after:
                    "refreshing \(String(decoding: pending.name, as: UTF8.self)) in directory \(pending.directory.rawValue)"
            )
            if let writtenAt, outcome != .settled { owedLate.append((pending, writtenAt + lateRestatDelay)) }
            guard outcome == .deferred else { continue }
            let attempts = deferred[pending, default: 0] + 1
            if attempts > deferralLimit {
                needsResync = true
            } else {
                deferredNames[pending] = attempts
            }
        }
        // In deadline order: the timers' queue stays sorted by being appended to in order.
        owedLate.sort { $0.deadline < $1.deadline }
        for (pending, deadline) in owedLate { restats.written(pending, lateDeadline: deadline) }
        retryFailedWatches()
        let readabilityChecks = deferredReadabilityChecks
        for (directory, attempts) in readabilityChecks {
            guard tree.contains(directory) else {
                deferredReadabilityChecks.removeValue(forKey: directory)
                continue
            }
            if attempts > deferralLimit { needsResync = true }
            checkReadability(of: directory)
        }
        var directories: Set<DirectoryID> = []
        swap(&directories, &pendingDirectories)
        let deferredSelves = deferredDirectories
        deferredDirectories.removeAll()
        for directory in directories.union(deferredSelves.keys) where tree.contains(directory) {
            let lookup = fileSystem.status(of: directory, tree: tree)
            switch lookup {
            case .found(let status) where status.kind == .directory:
                tree.updateDirectory(directory, status: status)
                if directory == tree.root && status.linkCount == 0 { rootIsGone = true }
            case .missing:
                // Parked names are not real: their records wait for the rest of a move.
                guard directory != tree.root, tree.name(of: directory).first != 0 else { break }
                // Nothing at the record's place: a queued rename or removal will say where it
                // went. If none does (the record was put there by the stale half of an
                // exchange the tree had already caught up with), the next sync looks at the
                // place again (``relistLostDirectories()``); nothing is re-stat'ed until then.
                missingSinceSync.insert(directory)
            case .directoryUnavailable, .outOfDescriptors:
                if lookup == .outOfDescriptors { starved.insert(directory) }
                let attempts = deferredSelves[directory, default: 0] + 1
                if attempts > deferralLimit { needsResync = true } else { deferredDirectories[directory] = attempts }
            default:
                break
            }
        }
    }

    /// Runs the timers that are due: unpaired moves become removals, quiet files get their
    /// late re-stat, and one more once writeback has run.
    package mutating func runTimers(now: UInt64) {
        latestNow = max(latestNow, now)
        while let (_, (since, cookie)) = transitQueue.popDue(now: now) {
            if inTransit[cookie]?.since == since, let transit = takeTransit(cookie) { dropUnpaired(transit) }
        }
        transitQueue.compact()
        expireDisplaced(now: now)
        pendingNames.formUnion(restats.due(now: now, writebackDelay: writebackRestatDelay))
        for found in restats.dueFound(now: now, writebackDelay: writebackRestatDelay) { restat(found) }
        // Dictionaries keep their largest size when emptied one key at a time.
        if inTransit.isEmpty && inTransit.capacity > 1024 { inTransit = [:] }
    }

    /// Brings everything up to date for a sync: moves still unpaired after the marker are
    /// moves out of the root, and recently written files are re-stat'ed now.
    package mutating func settleForSync() {
        expireDisplaced(now: nil)
        for transit in inTransit.values { dropUnpaired(transit) }
        forgetTransits()
        // Whatever writeback has added since (a sync(2) just before the request, say) counts
        // now, not 35 s later: every file written within the window is looked at again.
        pendingNames.formUnion(restats.names)
        for found in restats.foundFiles { restat(found) }
        pendingDirectories.insert(tree.root)
        // An unreadable directory may have no watch of its own to say that it grew, nor to
        // say that it is readable again (it may have been marked so by a stat refused by an
        // ancestor, readable again since): each is looked at afresh, shallowest first.
        pendingDirectories.formUnion(unreadable)
        for directory in unreadable.sorted(by: { tree.depth(of: $0) < tree.depth(of: $1) })
        where unreadable.contains(directory) && tree.contains(directory) {
            checkReadability(of: directory)
        }
        pollDegraded()
        flush()
        // A write through a name outside the root, or through one gone since, raises no event
        // where the inode's other names are: re-stat one name of every inode with several
        // names, chosen only now that polling and the flush have settled which names exist.
        // Not needed where the backend reports such writes by the inode (fanotify, for the
        // root's file system).
        let rootDevice = tree.device(of: tree.root)
        for file in tree.oneNamePerLinkedInode()
        where restatsLinkedInodesAtSync || tree.device(of: tree.directory(containing: file)) != rootDevice {
            pendingNames.insert(
                PendingName(directory: tree.directory(containing: file), name: Array(tree.name(of: file))))
        }
        flush()
        if unreadable.contains(where: { tree.contains($0) }) { restatEveryFile() }
        relistLostDirectories()
    }

    /// A directory without search permission hides its subtree, and a name made there for a
    /// file the tree knows by one name tells no watched directory (the link count change goes
    /// to watches on the inode alone), nor does a write through that name; du still counts the
    /// file's new size at the name it can reach. While a part of the tree is hidden so, a sync
    /// re-stats every file by its name in the tree, at once rather than through `pendingNames`.
    mutating func restatEveryFile() {
        var names: [PendingName] = []
        for directory in tree.subtree(of: tree.root) where !unreadable.contains(directory) {
            for file in tree.files(in: directory) {
                let name = tree.name(of: file)
                // Parked names are not real: their entries wait for the rest of a move.
                if name.first != 0 { names.append(PendingName(directory: directory, name: Array(name))) }
            }
        }
        for pending in names where refresh(pending) == .deferred { deferredNames[pending, default: 0] += 1 }
        // A name that turned out to be something else now (a directory, say) is settled too.
        flush()
    }

    /// At a sync every queued event has been applied, so a directory whose path still leads
    /// elsewhere is not waiting for a rename: an event went to the wrong record (a name stat'ed
    /// after it had been reused). List each such directory again from its name, shallowest first.
    mutating func relistLostDirectories() {
        var lost = Set(deferredDirectories.keys)
        // Records freed since (their numbers perhaps reused) are looked at only if in the tree.
        lost.formUnion(missingSinceSync.filter { tree.contains($0) })
        missingSinceSync = []
        lost.formUnion(deferredNames.keys.map(\.directory))
        lost.formUnion(deferredReadabilityChecks.keys)
        lost.formUnion(watchRetries.keys)
        guard !lost.isEmpty else { return }
        deferredDirectories.removeAll()
        deferredReadabilityChecks.removeAll()
        for directory in lost.sorted(by: { tree.depth(of: $0) < tree.depth(of: $1) }) {
            guard tree.contains(directory), let parent = tree.parent(of: directory) else { continue }
            switch fileSystem.status(of: directory, tree: tree) {
            // Out of descriptors nothing is known of it, and its deferred names keep it for
            // the next sync: removed, its subtree would be missing from totals shown as exact.
            case .found, .outOfDescriptors: continue
            default: break
            }
            let name = Array(tree.name(of: directory))
            removeDirectory(directory)
            createDirectory(named: name, in: parent)
        }
        flush()
    }

    /// Re-lists the subtrees that have no watch, so their totals stay exact.
    package mutating func pollDegraded() {
        for directory in polledDirectories where tree.contains(directory) {
            unwatched.remove(directory)
            shortOfDescriptors.remove(directory)
            if relist(directory).failed { unwatched.insert(directory) }
        }
    }

    /// Lists again each directory whose watch failed, which gets its watch that way. One that
    /// is unreadable now is listed, and watched, when a chmod makes it readable (an attribute
    /// event); one still refused past ``deferralLimit`` is polled like one over the watch limit.
    mutating func retryFailedWatches() {
        for (directory, attempts) in watchRetries {
            watchRetries.removeValue(forKey: directory)
            guard tree.contains(directory), !unreadable.contains(directory) else { continue }
            guard attempts <= deferralLimit else {
                unwatched.insert(directory)
                continue
            }
            // Failed, the record's path leads elsewhere (a rename of it still queued): its
            // contents wait for the next try, after more events.
            if relist(directory).failed || watchRetries[directory] != nil { watchRetries[directory] = attempts + 1 }
        }
    }

    /// Replaces a directory's contents with a fresh crawl of its subtree.
    mutating func relist(_ directory: DirectoryID) -> CrawlReport {
        clearContents(of: directory)
        let report = fileSystem.crawl(directory, tree: &tree)
        pendingDirectories.insert(directory)
        register(report)
        structureChanges?.placed.append(directory)
        counters.rescannedDirectories += UInt64(report.listed)
        return report
    }

    /// Replaces the tree with a fresh crawl after an overflow. Returns the directories listed,
    /// or nil when the root could not be crawled.
    package mutating func resync() -> Int? {
        guard let (fresh, report) = fileSystem.crawlRoot() else { return nil }
        let oldWatches = directoryByWatch
        directoryByWatch.removeAll()
        otherPlacesByWatch.removeAll()
        tree = fresh
        forgetTransits()
        pendingNames = PendingNames()
        pendingDirectories.removeAll()
        deferredNames.removeAll()
        deferredDirectories.removeAll()
        missingSinceSync = []
        deferredReadabilityChecks.removeAll()
        watchRetries.removeAll()
        restats.removeAll()
        unreadable.removeAll()
        unwatched.removeAll()
        shortOfDescriptors.removeAll()
        starved.removeAll()
        verification.treeReplaced()
        // A new tree: the policy layer places it whole, so nothing logged before applies.
        if structureChanges != nil { structureChanges = StructureChanges() }
        register(report)
        for watch in oldWatches.keys where directoryByWatch[watch] == nil { fileSystem.removeWatch(watch) }
        // A sync marker of ours may have been there for the crawl to see; it is never counted.
        for file in tree.files(in: tree.root) where tree.name(of: file).starts(with: markerPrefix) {
            tree.removeFile(file)
        }
        counters.rescannedDirectories += UInt64(report.listed)
        needsResync = false
        return report.listed
    }

    /// Re-stats a file a crawl found, by the name it has now, if it is still the same file and
    /// not parked by a move. At once rather than through `pendingNames`: a batch can hold a
    /// million files, and a set of their names would cost more than the tree.
    mutating func restat(_ found: RestatTimers.FoundFile) {
        guard tree.contains(found.file), tree.inode(of: found.file) == found.inode else { return }
        let name = tree.name(of: found.file)
        guard name.first != 0 else { return }
        let pending = PendingName(directory: tree.directory(containing: found.file), name: Array(name))
        if refresh(pending) == .deferred { deferredNames[pending, default: 0] += 1 }
    }

    /// What a stat of a pending name showed, for the re-stats a write of it is owed.
    enum RefreshOutcome: Equatable {
        /// Its directory could not be opened yet: tried again after more events.
        case deferred
        /// Nothing more is owed to the name: its allocation is final until its next event, or
        /// neither the tree nor the file system has it.
        case settled
        /// Up to date, and what it holds can still change with no event.
        case mayChange
    }

    /// Brings one name up to date.
    mutating func refresh(_ pending: PendingName) -> RefreshOutcome {
        let directory = pending.directory
        guard tree.contains(directory), !unreadable.contains(directory) else { return .mayChange }
        let existing = tree.entry(named: pending.name, in: directory)
        logFile(named: pending.name, in: directory)
        switch fileSystem.status(of: pending.name, in: directory, tree: tree) {
        case .directoryUnavailable:
            return .deferred
        case .outOfDescriptors:
            starved.insert(directory)
            return .deferred
        case .permissionDenied:
            markUnreadable(directory)
        case .missing:
            if case .file(let file)? = existing { tree.removeFile(file) }
            // Neither the tree nor the file system has the name: nothing is owed to it. A name
            // made and removed before its events are read comes this way when its write
            // events follow the removal (fanotify merges the create and the delete into one
            // record ahead of them); its re-stat timers would otherwise stay 35 s.
            if existing == nil { restats.forget(pending) }
            // What comes to the name later brings events of its own.
            return .settled
        case .found(let status) where status.kind == .directory:
            switch existing {
            case .file(let file)?: tree.removeFile(file)
            case .directory(let child)?:
                if tree.inode(of: child) == status.inode && tree.device(of: child) == status.device {
                    return .mayChange
                }
                // Another directory has the name now: the record was moved here by a rename
                // pair whose other half named a directory the tree never had (moved in from
                // one it cannot see, then exchanged). Kept, it would stand for the wrong
                // directory for good; if its own directory is elsewhere in the tree, the crawl
                // below or that place's next refresh finds it again by its watch or its name.
                removeDirectory(child)
            case nil: break
            }
            createDirectory(named: pending.name, in: directory)
        case .found(let status):
            switch existing {
            case .file(let file)?: tree.updateFile(file, status: status)
            case .directory(let child)?:
                removeDirectory(child)
                addFile(named: pending.name, in: directory, status: status)
            case nil: addFile(named: pending.name, in: directory, status: status)
            }
            // Stat'ed after every event applied so far: where nothing but an event can change
            // this allocation, its late and writeback re-stats (and their second stat at a
            // sync) would only read it again. A later write schedules them anew.
            if fileSystem.allocationIsFinal(status, in: directory, tree: tree) {
                restats.forget(pending)
                return .settled
            }
        }
        return .mayChange
    }
}
