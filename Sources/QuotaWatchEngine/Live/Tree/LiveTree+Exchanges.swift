import QuotaWatchCore

/// `renameat2(RENAME_EXCHANGE)`: the kernel reports a swap of `P/A` and `Q/B` as two renames
/// and no removal — `moved_from P/A`, `moved_to Q/B`, then `moved_from Q/B`, `moved_to P/A`
/// with a second cookie. Its first pair looks exactly like a rename over `Q/B`, so the entry
/// a `moved_to` lands on is not dropped at once: it is parked as *displaced* until it is
/// clear which it was. A `moved_from` of that name that follows takes it (an exchange), and
/// otherwise it goes at the end of the batch, unless the file system shows it was swapped.
extension LiveTree {
    /// The entry a `moved_to` landed on, waiting under a parked name of its own.
    struct Displaced {
        var entry: TreeEntry
        var parkedName: [UInt8]
        /// The name the first pair's entry left: after an exchange, the displaced inode is there.
        var swappedInto: PendingName?
        /// The re-stats the displaced entry's name was owed, which it keeps if it takes a name again.
        var restats: RestatTimers.Owed?
        var since: UInt64
    }

    /// Parks whatever `name` in `directory` holds before a `moved_to` takes the name.
    mutating func displaceEntry(
        named name: [UInt8], in directory: DirectoryID, cookie: UInt64, comingFrom source: Transit?, now: UInt64
    ) {
        let place = PendingName(directory: directory, name: name)
        if let earlier = displaced.removeValue(forKey: place) { dropDisplaced(earlier, in: directory) }
        // What the name was owed goes with the entry that had it, or, with none, is owed no more.
        let owed = takeOwedRestats(place)
        guard let entry = tree.entry(named: name, in: directory) else { return }
        // Two NULs and the cookie: the length tells it apart from a move's parked name.
        var parkedName: [UInt8] = [0, 0]
        withUnsafeBytes(of: cookie.littleEndian) { parkedName.append(contentsOf: $0) }
        switch entry {
        case .file(let file): tree.moveFile(file, to: directory, named: parkedName)
        case .directory(let child): tree.moveDirectory(child, to: directory, named: parkedName)
        }
        displaced[place] = Displaced(
            entry: entry, parkedName: parkedName,
            swappedInto: source.map { PendingName(directory: $0.parent, name: $0.originalName) },
            restats: owed, since: now)
    }

    /// What a `moved_from` of a name an entry was displaced from means for that entry.
    enum DisplacedFate {
        /// The exchange's second pair: the displaced entry is the one that moves.
        case moves(Displaced)
        /// The displaced inode is at the name now (the tree was ahead of these events): the
        /// newcomer is the one that moves, and the displaced entry takes the name back.
        case stays(Displaced)
    }

    /// Decides, for a `moved_from` of `name` in `directory`, which entry leaves. Nil when
    /// nothing was displaced there or it was renamed over (and is gone now).
    mutating func claimDisplaced(named name: [UInt8], in directory: DirectoryID) -> DisplacedFate? {
        let place = PendingName(directory: directory, name: name)
        guard let waiting = displaced.removeValue(forKey: place) else { return nil }
        guard isStillDisplaced(waiting, in: directory) else { return nil }
        if isCopyOfNewcomer(waiting, at: place) {
            dropDisplaced(waiting, in: directory)
            return nil
        }
        let displacedInode = inode(of: waiting.entry)
        let here = inode(at: place)
        if let here, here == displacedInode { return .stays(waiting) }
        // The newcomer's record holds the name; after an exchange its inode is still there.
        if let here, let newcomer = tree.entry(named: name, in: directory), here == inode(of: newcomer) {
            return .moves(waiting)
        }
        if mayBeSwapped(waiting) { return .moves(waiting) }
        dropDisplaced(waiting, in: directory)
        return nil
    }

    /// Gives a displaced entry its name back, once the newcomer has left it.
    mutating func restoreDisplaced(_ kept: Displaced, named name: [UInt8], in directory: DirectoryID) {
        guard isStillDisplaced(kept, in: directory) else { return }
        guard tree.entry(named: name, in: directory) == nil else {
            // Nothing may stay under a parked name that no table remembers.
            dropDisplaced(kept, in: directory)
            return
        }
        switch kept.entry {
        case .file(let file): tree.moveFile(file, to: directory, named: name)
        case .directory(let child):
            tree.moveDirectory(child, to: directory, named: name)
            structureChanges?.placed.append(child)
            pendingDirectories.insert(child)
        }
        let place = PendingName(directory: directory, name: name)
        pendingNames.insert(place)
        if let owed = kept.restats { restats.give(owed, to: place) }
    }

    /// A directory found at a name while its record waits displaced or parked by a move (the
    /// tree ahead of the events: an exchange's second pair, say, not applied yet) takes that
    /// record back instead of being listed as a second one. Only for records left unwatched by
    /// the watch limit: a watched one is found by its watch when the listing adds it, which a
    /// reused inode number cannot fool. O(moves in flight), which a window of 50 ms keeps few.
    mutating func restoreDisplacedDirectory(_ status: FileStatus, named name: [UInt8], in parent: DirectoryID) -> Bool {
        func isIt(_ entry: TreeEntry?) -> Bool {
            guard case .directory(let child)? = entry, tree.contains(child), unwatched.contains(child) else {
                return false
            }
            return tree.inode(of: child) == status.inode && tree.device(of: child) == status.device
                && !tree.isDescendant(parent, of: child)
        }
        let child: DirectoryID
        if let (place, waiting) = displaced.first(where: {
            isIt($0.value.entry) && isStillDisplaced($0.value, in: $0.key.directory)
        }),
            case .directory(let found) = waiting.entry
        {
            displaced.removeValue(forKey: place)
            child = found
        } else if let (cookie, transit) = inTransit.first(where: { isIt($0.value.entry) && isStillParked($0.value) }),
            case .directory(let found)? = transit.entry
        {
            _ = takeTransit(cookie)
            child = found
        } else {
            return false
        }
        tree.moveDirectory(child, to: parent, named: name)
        tree.updateDirectory(child, status: status)
        structureChanges?.placed.append(child)
        pendingDirectories.insert(child)
        return true
    }

    /// Whether a displaced directory is a second record of the very directory that took its
    /// name: listed there from a path the rename had already changed (the tree ahead of the
    /// events), while its own record was still on its way. An exchange swaps two inodes, so this
    /// one was renamed over by itself: it is no swapped entry, and kept, it would be moved away
    /// by the newcomer's next rename and leave the newcomer behind as a second copy.
    func isCopyOfNewcomer(_ waiting: Displaced, at place: PendingName) -> Bool {
        guard case .directory(let copy) = waiting.entry,
            case .directory(let newcomer)? = tree.entry(named: place.name, in: place.directory), newcomer != copy
        else { return false }
        return tree.inode(of: newcomer) == tree.inode(of: copy) && tree.device(of: newcomer) == tree.device(of: copy)
    }

    /// Whether a displaced entry may still be on its way to where the newcomer came from:
    /// its inode is there now, or it is a directory with anything in it, which no rename may
    /// replace. The file system may have moved on since; a wrong guess for a file is mended by
    /// the re-stat of its name, for a directory by the check of its inode at its path.
    mutating func mayBeSwapped(_ waiting: Displaced) -> Bool {
        if case .directory(let child) = waiting.entry {
            let tally = tree.tally(of: child)
            if tally.files > 0 || tally.dirs > 0 { return true }
        }
        guard let source = waiting.swappedInto else { return false }
        return inode(at: source) == inode(of: waiting.entry)
    }

    private func inode(of entry: TreeEntry) -> UInt64 {
        switch entry {
        case .file(let file): tree.inode(of: file)
        case .directory(let child): tree.inode(of: child)
        }
    }

    private mutating func inode(at place: PendingName) -> UInt64? {
        guard tree.contains(place.directory),
            case .found(let status) = fileSystem.status(of: place.name, in: place.directory, tree: tree)
        else { return nil }
        return status.inode
    }

    /// At the end of a batch, an entry still displaced was renamed over, unless it may still be
    /// swapped: then the exchange's second pair is still in the queue.
    mutating func settleDisplaced() {
        guard !displaced.isEmpty else { return }
        for (place, waiting) in displaced {
            guard isStillDisplaced(waiting, in: place.directory) else {
                displaced.removeValue(forKey: place)
                continue
            }
            if !isCopyOfNewcomer(waiting, at: place) && mayBeSwapped(waiting) { continue }
            displaced.removeValue(forKey: place)
            dropDisplaced(waiting, in: place.directory)
        }
    }

    /// Drops displaced entries that waited a move window (or all of them, at a sync, when
    /// every event before the marker has been applied).
    mutating func expireDisplaced(now: UInt64?) {
        for (place, waiting) in displaced where now.map({ $0 >= waiting.since + moveWindow }) ?? true {
            displaced.removeValue(forKey: place)
            dropDisplaced(waiting, in: place.directory)
        }
        // A dictionary keeps its largest size when emptied one key at a time (a burst of
        // atomic saves displaces one entry each).
        if displaced.isEmpty && displaced.capacity > 1024 { displaced = [:] }
    }

    var nextDisplacedDeadline: UInt64? {
        displaced.isEmpty ? nil : displaced.values.lazy.map { $0.since + self.moveWindow }.min()
    }

    func isStillDisplaced(_ waiting: Displaced, in directory: DirectoryID) -> Bool {
        tree.contains(directory) && tree.entry(named: waiting.parkedName, in: directory) == waiting.entry
    }

    private mutating func dropDisplaced(_ waiting: Displaced, in directory: DirectoryID) {
        guard isStillDisplaced(waiting, in: directory) else { return }
        switch waiting.entry {
        case .file(let file): tree.removeFile(file)
        case .directory(let child): removeDirectory(child)
        }
    }
}
