extension TallyTree {
    /// Adds a crawled directory's entries to `directory`, which must hold none of them yet.
    /// Returns the new subdirectories with the crawler's number for each, so the crawl can
    /// file their own listings under them.
    public mutating func addListing(
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

    /// Rewrites the name arena without its garbage once more than half of it is garbage,
    /// so churn costs amortised O(1) per removed name.
    mutating func compactNamesIfNeeded() {
        guard names.needsCompaction else { return }
        var fresh = names.emptyCopy()
        for index in files.indices where files[index].directory != noRecord {
            let record = files[index]
            files[index].nameOffset = fresh.append(names.name(at: record.nameOffset, length: record.nameLength))
        }
        for index in directories.indices where directories[index].isLive && index != Int(root.rawValue) {
            let record = directories[index]
            directories[index].nameOffset = fresh.append(names.name(at: record.nameOffset, length: record.nameLength))
        }
        names = fresh
    }
}
