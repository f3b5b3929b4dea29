import QuotaWatchCore

/// Renames paired by cookie; an entry waits under a parked name for its `moved_to`.
extension LiveTree {
    mutating func beginMove(cookie: UInt32, from directory: DirectoryID, name: [UInt8], now: UInt64) {
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
        transitQueue.append((now, cookie))
        if case .file(let file)? = entry { parkedFiles[tree.inode(of: file)] = cookie }
    }

    /// Ends a move's wait, whatever becomes of it.
    mutating func takeTransit(_ cookie: UInt32) -> Transit? {
        guard let transit = inTransit.removeValue(forKey: cookie) else { return nil }
        if case .file(let file)? = transit.entry, parkedFiles[tree.inode(of: file)] == cookie {
            parkedFiles.removeValue(forKey: tree.inode(of: file))
        }
        return transit
    }

    mutating func forgetTransits() {
        inTransit.removeAll()
        transitQueue.removeAll()
        transitHead = 0
        parkedFiles.removeAll()
    }

    mutating func finishMove(cookie: UInt32, to directory: DirectoryID, name: [UInt8], isDirectory: Bool) {
        let transit = takeTransit(cookie)
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

    /// Adds a file that appeared, unless it is a parked one coming back: a file moved out of
    /// the root and straight back in under another name has two unpaired moves, and would
    /// otherwise be counted twice until its first move timed out.
    mutating func addFile(named name: [UInt8], in directory: DirectoryID, status: FileStatus) {
        guard let cookie = parkedFiles[status.inode], let transit = inTransit[cookie],
            case .file(let file)? = transit.entry, isStillParked(transit), tree.inode(of: file) == status.inode,
            tree.device(of: tree.directory(containing: file)) == tree.device(of: directory)
        else {
            tree.addFile(named: name, in: directory, status: status)
            return
        }
        _ = takeTransit(cookie)
        tree.moveFile(file, to: directory, named: name)
        tree.updateFile(file, status: status)
    }
}
