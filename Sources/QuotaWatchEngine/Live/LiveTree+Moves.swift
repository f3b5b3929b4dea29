import QuotaWatchCore

/// Renames paired by cookie; an entry waits under a parked name for its `moved_to`.
extension LiveTree {
    mutating func beginMove(cookie: UInt64, from directory: DirectoryID, name: [UInt8], now: UInt64) {
        // A NUL byte cannot occur in a real name, so the parked name collides with nothing.
        var parkedName: [UInt8] = [0]
        withUnsafeBytes(of: cookie.littleEndian) { parkedName.append(contentsOf: $0) }
        let entry = tree.entry(named: name, in: directory)
        switch entry {
        case .file(let file)?: tree.moveFile(file, to: directory, named: parkedName)
        case .directory(let child)?: tree.moveDirectory(child, to: directory, named: parkedName)
        case nil: break
        }
        if let previous = takeTransit(cookie) { dropParked(previous) }
        inTransit[cookie] = Transit(
            entry: entry, parent: directory, parkedName: parkedName, originalName: name, since: now)
        transitQueue.append((now, cookie), at: now + moveWindow)
    }

    /// Ends a move's wait, whatever becomes of it.
    mutating func takeTransit(_ cookie: UInt64) -> Transit? {
        inTransit.removeValue(forKey: cookie)
    }

    mutating func forgetTransits() {
        inTransit.removeAll()
        transitQueue.removeAll()
    }

    mutating func finishMove(cookie: UInt64, to directory: DirectoryID, name: [UInt8], isDirectory: Bool) {
        let transit = takeTransit(cookie)
        if unreadable.contains(directory) {
            if let transit { dropParked(transit) }
            return
        }
        removeEntry(named: name, in: directory)
        if let transit {
            // The file keeps its pending re-stats under its new name.
            restats.rename(
                PendingName(directory: transit.parent, name: transit.originalName),
                to: PendingName(directory: directory, name: name))
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
                structureChanges?.placed.append(child)
                pendingDirectories.insert(child)
            }
        } else if isDirectory {
            // Moved in from outside the root (or from a directory we could not see): list it once.
            createDirectory(named: name, in: directory)
        } else {
            pendingNames.insert(PendingName(directory: directory, name: name))
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
