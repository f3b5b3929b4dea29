import QuotaWatchCore

/// Directories coming and going: crawls, watches, one record per directory, readability.
extension LiveTree {
    mutating func register(_ report: CrawlReport) {
        var found: [RestatTimers.FoundFile] = []
        for (directory, name) in report.recentlyWritten where tree.contains(directory) {
            if case .file(let file)? = tree.entry(named: name, in: directory) {
                found.append(RestatTimers.FoundFile(file: file, inode: tree.inode(of: file)))
            }
        }
        restats.foundByCrawl(found, lateDeadline: latestNow + lateRestatDelay)
        for (watch, directory) in report.watches where tree.contains(directory) {
            if let known = directoryByWatch[watch], known != directory, tree.contains(known) {
                // inotify hands back the watch it already has on an inode, and a crawl records
                // the inode it watched: the same watch means the same directory.
                if tree.inode(of: known) == tree.inode(of: directory),
                    addPlace(directory, of: known, watch: watch) || adopt(known, asCopy: directory)
                {
                    continue
                }
                // Two records claim one watch and cannot be merged. Removing either would
                // take the kernel's watch from the other, so only a fresh crawl can be trusted.
                needsResync = true
            }
            directoryByWatch[watch] = directory
        }
        unreadable.formUnion(report.unreadable.filter { tree.contains($0) })
        for directory in report.watchFailed where tree.contains(directory) { watchRetries[directory, default: 0] += 1 }
        unwatched.formUnion(report.unwatched.filter { tree.contains($0) })
        let short = report.shortOfDescriptors.filter { tree.contains($0) }
        unwatched.formUnion(short)
        shortOfDescriptors.formUnion(short)
    }

    /// inotify handed back the watch of a directory already in the tree: the crawl found, under
    /// a new name, a directory whose move events are still queued (or were never seen). One
    /// directory gets one record: the known one, which its events have kept current, takes the
    /// new place and the fresh copy goes. False if that cannot be done safely.
    mutating func adopt(_ known: DirectoryID, asCopy copy: DirectoryID) -> Bool {
        guard let parent = tree.parent(of: copy), !tree.isDescendant(parent, of: known) else { return false }
        let name = Array(tree.name(of: copy))
        let oldPlace = tree.parent(of: known).map { PendingName(directory: $0, name: Array(tree.name(of: known))) }
        removeDirectory(copy)
        tree.moveDirectory(known, to: parent, named: name)
        structureChanges?.placed.append(known)
        pendingDirectories.insert(known)
        // Whatever now has the known record's old name (another directory that took the name
        // before its events were applied, say) is looked at afresh. Parked names are not real.
        if let oldPlace, oldPlace.name.first != 0 { pendingNames.insert(oldPlace) }
        return true
    }

    mutating func createDirectory(named name: [UInt8], in parent: DirectoryID) {
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
        case .directoryUnavailable, .outOfDescriptors:
            deferredNames[PendingName(directory: parent, name: name), default: 0] += 1
            return
        case .found(let found): status = found
        }
        guard status.kind == .directory else {
            pendingNames.insert(PendingName(directory: parent, name: name))
            return
        }
        // Left out first: a record waiting displaced is not brought back at a place that makes
        // a bind-mount cycle or lies on another file system.
        if isLeftOut(status, in: parent) { return }
        if restoreDisplacedDirectory(status, named: name, in: parent) { return }
        let directory = tree.addDirectory(named: name, in: parent, status: status)
        let report = fileSystem.crawl(directory, tree: &tree)
        if report.failed {
            // Renamed or removed between the stat and the open: try again after more events.
            removeDirectory(directory)
            deferredNames[PendingName(directory: parent, name: name), default: 0] += 1
            return
        }
        register(report)
        structureChanges?.placed.append(directory)
        counters.rescannedDirectories += UInt64(report.listed)
    }

    mutating func removeEntry(named name: [UInt8], in directory: DirectoryID) {
        // Whatever had the name is gone: its re-stats would only find the name missing, and
        // kept, they would keep every name ever written for the length of the window.
        restats.forget(PendingName(directory: directory, name: name))
        switch tree.entry(named: name, in: directory) {
        case .file(let file)?:
            tree.removeFile(file)
            // A leftover reported there is gone: without this, nothing would look at the name again.
            logFile(named: name, in: directory)
        case .directory(let child)?: removeDirectory(child)
        case nil: break
        }
    }

    mutating func removeDirectory(_ directory: DirectoryID) {
        forgetSubtree(of: directory)
        tree.removeDirectory(directory)
    }

    /// Drops watches and handles for every directory in the subtree, before it leaves the tree.
    mutating func forgetSubtree(of directory: DirectoryID, includingTop: Bool = true) {
        for member in tree.subtree(of: directory) where includingTop || member != directory {
            releaseWatch(of: member)
            fileSystem.forget(member)
            unreadable.remove(member)
            unwatched.remove(member)
            shortOfDescriptors.remove(member)
            watchRetries.removeValue(forKey: member)
            pendingDirectories.remove(member)
            structureChanges?.removed.append(member)
        }
    }

    /// Empties a directory in the tree, keeping the directory itself.
    mutating func clearContents(of directory: DirectoryID) {
        for child in tree.subdirectories(of: directory) { removeDirectory(child) }
        for file in tree.files(in: directory) { tree.removeFile(file) }
    }

    mutating func checkReadability(of directory: DirectoryID) {
        switch fileSystem.readability(of: directory, tree: tree) {
        case .elsewhere:
            // Asked at a stale path: ask again once the queued rename is applied.
            deferredReadabilityChecks[directory, default: 0] += 1
        case .readable:
            deferredReadabilityChecks.removeValue(forKey: directory)
            if unreadable.remove(directory) != nil {
                _ = relist(directory)
                return
            }
            // A stat refused while this directory had no search permission for a moment (a
            // chmod 000 and back) marked the directory that held the name, further down, and
            // no event will say it is readable: each such one is looked at again now.
            let below = unreadable.filter {
                $0 != directory && tree.contains($0) && tree.isDescendant($0, of: directory)
            }
            for hidden in below.sorted(by: { tree.depth(of: $0) < tree.depth(of: $1) })
            where unreadable.contains(hidden) {
                checkReadability(of: hidden)
            }
        case .unreadable:
            deferredReadabilityChecks.removeValue(forKey: directory)
            markUnreadable(directory)
        }
    }

    /// du cannot list it any more, so it counts the directory's own inode only. A chmod that
    /// makes it readable again comes as an attribute event, which lists it anew.
    mutating func markUnreadable(_ directory: DirectoryID) {
        guard !unreadable.contains(directory) else { return }
        clearContents(of: directory)
        unreadable.insert(directory)
        pendingDirectories.insert(directory)
    }
}
