import QuotaWatchCore

/// Renames paired by cookie; an entry waits under a parked name for its `moved_to`.
extension LiveTree {
    mutating func beginMove(cookie: UInt64, from directory: DirectoryID, name: [UInt8], now: UInt64) {
        // A NUL byte cannot occur in a real name, so the parked name collides with nothing.
        var parkedName: [UInt8] = [0]
        withUnsafeBytes(of: cookie.littleEndian) { parkedName.append(contentsOf: $0) }
        let place = PendingName(directory: directory, name: name)
        let entry: TreeEntry?
        var owed: RestatTimers.Owed?
        let fate = claimDisplaced(named: name, in: directory)
        if case .moves(let swapped)? = fate {
            // The second half of an exchange: the entry displaced by its first half moves.
            entry = swapped.entry
            parkedName = swapped.parkedName
            owed = swapped.restats
        } else {
            entry =
                directoryStillThere(tree.entry(named: name, in: directory), at: place)
                ? nil : tree.entry(named: name, in: directory)
            switch entry {
            case .file(let file)?:
                tree.moveFile(file, to: directory, named: parkedName)
                // The name is free now: a leftover reported under it is no longer there.
                logFile(named: name, in: directory)
            case .directory(let child)?: tree.moveDirectory(child, to: directory, named: parkedName)
            case nil: break
            }
            // The re-stats go with the entry, and come back at whichever name it lands on.
            if entry != nil { owed = takeOwedRestats(place) }
        }
        if case .stays(let kept)? = fate { restoreDisplaced(kept, named: name, in: directory) }
        if let previous = takeTransit(cookie) { dropParked(previous) }
        inTransit[cookie] = Transit(
            entry: entry, parent: directory, parkedName: parkedName, originalName: name, since: now,
            restats: owed)
        transitQueue.append((now, cookie), at: now + moveWindow)
    }

    /// Whether an unwatched directory's record is still where the file system has its inode:
    /// then a `moved_from` of its name is about another inode that was there before (the tree
    /// is ahead of these events, its record made from a later listing), and it stays. A watched
    /// record needs no such guess: a listing finds it by its watch. Only records left unwatched
    /// by the watch limit are guessed about, since a dead directory's inode number can come
    /// back at once, and those are listed again every poll anyway.
    mutating func directoryStillThere(_ entry: TreeEntry?, at place: PendingName) -> Bool {
        guard case .directory(let child)? = entry, unwatched.contains(child),
            case .found(let status) = fileSystem.status(of: place.name, in: place.directory, tree: tree)
        else { return false }
        return status.kind == .directory && status.inode == tree.inode(of: child)
            && status.device == tree.device(of: child)
    }

    /// Ends a move's wait, whatever becomes of it.
    mutating func takeTransit(_ cookie: UInt64) -> Transit? {
        inTransit.removeValue(forKey: cookie)
    }

    mutating func forgetTransits() {
        inTransit.removeAll()
        transitQueue.removeAll()
        displaced.removeAll()
    }

    /// A move whose `moved_to` never came went out of the root. Its old name is looked at
    /// once more: an exchange whose halves were read apart can have put something there.
    mutating func dropUnpaired(_ transit: Transit) {
        dropParked(transit)
        if tree.contains(transit.parent) {
            let original = PendingName(directory: transit.parent, name: transit.originalName)
            // Moved out of the root: the name it had is owed nothing (what comes there is
            // looked at now, and gets its own re-stats from its own events).
            restats.forget(original)
            pendingNames.insert(original)
        }
    }

    mutating func finishMove(
        cookie: UInt64, to directory: DirectoryID, name: [UInt8], isDirectory: Bool, now: UInt64
    ) {
        let transit = takeTransit(cookie)
        if unreadable.contains(directory) {
            if let transit { dropParked(transit) }
            return
        }
        // A rename over the name, or the first half of an exchange: which, the next events tell.
        displaceEntry(named: name, in: directory, cookie: cookie, comingFrom: transit, now: now)
        let renamed = PendingName(directory: directory, name: name)
        if let transit, let owed = transit.restats, isStillParked(transit) {
            // The file keeps its pending re-stats under its new name.
            restats.give(owed, to: renamed)
        }
        if let transit, let entry = transit.entry, isStillParked(transit) {
            // The name it left is looked at again: an exchange puts another entry there, and
            // when the tree was ahead of these events the one that moved may not be this one.
            pendingNames.insert(PendingName(directory: transit.parent, name: transit.originalName))
            switch entry {
            case .file(let file):
                tree.moveFile(file, to: directory, named: name)
                // A rename moves the ctime on, and the late re-stats follow names: the ones due
                // at the old name (the one after writeback, say) would miss it now.
                pendingNames.written(renamed, at: now)
            case .directory(let child):
                guard !tree.isDescendant(directory, of: child) else {
                    // The tree places the target inside the directory being moved there, which
                    // the kernel never allows: a record is out of date in a way no queued event
                    // will mend. Only a fresh crawl can be trusted now.
                    needsResync = true
                    return
                }
                tree.moveDirectory(child, to: directory, named: name)
                structureChanges?.placed.append(child)
                pendingDirectories.insert(child)
            }
        } else if isDirectory {
            // Moved in from outside the root (or from a directory we could not see): list it once.
            createDirectory(named: name, in: directory)
        } else {
            // Moved in from outside: its data may not be written back yet, whatever its mtime
            // says (tar, cp -a and rsync set it back), so it gets the late re-stats a write gets.
            pendingNames.written(renamed, at: now)
        }
    }

    func isStillParked(_ transit: Transit) -> Bool {
        guard tree.contains(transit.parent), let entry = transit.entry else { return false }
        return tree.entry(named: transit.parkedName, in: transit.parent) == entry
    }

    /// A parked entry whose `moved_to` never came left the root.
    mutating func dropParked(_ transit: Transit) {
        guard isStillParked(transit), let entry = transit.entry else { return }
        switch entry {
        case .file(let file): tree.removeFile(file)
        case .directory(let child): removeDirectory(child)
        }
    }

    /// Adds a file that appeared. A file whose link count is one has no other name, so a
    /// record elsewhere with its inode is stale — parked by a move out of the root that it came
    /// straight back from, or left behind by a rename whose events went to a directory listed
    /// too late. That record takes the new name instead of the inode being counted twice, and
    /// whatever now has its old name is looked at again.
    mutating func addFile(named name: [UInt8], in directory: DirectoryID, status: FileStatus) {
        // Names recorded as links of an inode now down to one link are single-named again
        // first, so a stale one among them is found below like any other.
        if !status.mayHaveOtherNames {
            tree.convertLinkedFilesToSingleNamed(device: tree.device(of: directory), status: status)
        }
        guard !status.mayHaveOtherNames,
            let stale = tree.singleNamedFile(device: tree.device(of: directory), inode: status.inode)
        else {
            tree.addFile(named: name, in: directory, status: status)
            return
        }
        let oldPlace = PendingName(directory: tree.directory(containing: stale), name: Array(tree.name(of: stale)))
        if oldPlace.name.first != 0,
            case .found(let there) = fileSystem.status(of: oldPlace.name, in: oldPlace.directory, tree: tree),
            there.inode == status.inode, there.device == status.device
        {
            // Still there too: one file shown at two places by a bind mount, counted at each.
            tree.addFile(named: name, in: directory, status: status)
            return
        }
        tree.moveFile(stale, to: directory, named: name)
        tree.updateFile(stale, status: status)
        if oldPlace.name.first != 0 { pendingNames.insert(oldPlace) }
    }
}
