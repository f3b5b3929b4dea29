extension TallyTree {
    /// Adds a crawled directory's entries to `directory`, which must hold none of them yet.
    /// Returns the new subdirectories with the crawler's number for each, so the crawl can
    /// file their own listings under them.
    package mutating func addListing(
        _ listing: DirectoryListing, to directory: DirectoryID
    )
        -> [(crawlIndex: UInt32, directory: DirectoryID)]
    {
        var subdirectories: [(crawlIndex: UInt32, directory: DirectoryID)] = []
        var pending = TallyDelta()
        for entry in listing.entries {
            let name = listing.name(of: entry)
            if entry.status.kind == .directory {
                let child = addDirectory(named: name, in: directory, status: entry.status)
                subdirectories.append((entry.crawlIndex, child))
            } else {
                _ = addFile(named: name, in: directory, status: entry.status, deferring: &pending)
            }
        }
        if !pending.isZero { propagate(pending, from: directory.rawValue) }
        return subdirectories
    }

    /// Reserves room for about `files` names before a crawl, so that the record array and the
    /// name arena never grow by copying: at each doubling the old copy and the new were both
    /// resident, which set a scan's peak memory about a third above what the tree keeps.
    /// Only address space is taken: a page costs memory once a record or a name is written
    /// to it, so an estimate far above the tree's size (the whole file system's inodes for a
    /// root below its top) costs nothing but address space. Capped at 2²⁴ names.
    package mutating func reserveCapacity(files expected: UInt64) {
        let count = Int(min(expected, 1 << 24))
        files.reserveCapacity(count)
        names.reserveCapacity(count * Self.reservedNameBytes)
    }

    /// Bytes of name arena reserved per expected name: a length byte and a name of 31 bytes,
    /// above the averages seen (22.6 bytes on the bench's sandbox-200k).
    static let reservedNameBytes = 32

    /// After a removal: what the tree no longer needs goes back, each part once it is mostly
    /// unused, so memory follows the tree however many names have come and gone.
    mutating func releaseSpareMemory() {
        trimFreeFileRecords()
        compactNamesIfNeeded()
        shrinkIndexesIfSparse()
    }

    /// Rebuilds the name and inode tables smaller once the tree has shrunk to a tenth of them.
    mutating func shrinkIndexesIfSparse() {
        if entryIndex.isSparse {
            entryIndex = entryIndex.rebuilt(slotCount: entryIndex.compactSlotCount, rehash: entryHasher)
        }
        if inodeIndex.isSparse {
            inodeIndex = inodeIndex.rebuilt(slotCount: inodeIndex.compactSlotCount, rehash: inodeHasher)
        }
    }

    /// Rewrites the name arena without its garbage once more than half of it is garbage,
    /// so churn costs amortised O(1) per removed name. The rewrite walks every record, free
    /// ones too, so it also waits for at least a byte of garbage per record: a tree left with a
    /// few live names among many free records does not walk them all every few removals.
    mutating func compactNamesIfNeeded() {
        guard names.needsCompaction, names.garbage >= files.count + directories.count else { return }
        var fresh = names.emptyCopy()
        for index in files.indices where files[index].directory != noRecord {
            let record = files[index]
            files[index].nameOffset = fresh.append(names.name(at: record.nameOffset))
        }
        for index in directories.indices where directories[index].isLive && index != Int(root.rawValue) {
            let record = directories[index]
            directories[index].nameOffset = fresh.append(names.name(at: record.nameOffset))
        }
        names = fresh
    }
}
