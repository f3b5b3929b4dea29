/// A full check of the tree's own bookkeeping, for tests and for a daemon run with
/// `QUOTAWATCH_CHECK_TREE=1`: the indexes and lists that every O(depth) update relies on,
/// each compared with the records. A broken invariant shows up here at the change that broke
/// it, instead of as a trap many changes later (a freed record met by a table's rehash).
/// O(records); never called on the daemon's normal path.
extension TallyTree {
    /// What is wrong, one line each, at most `limit` lines; empty for a sound tree.
    package func consistencyViolations(limit: Int = 8) -> [String] {
        var problems: [String] = []
        func report(_ problem: @autoclosure () -> String) {
            if problems.count < limit { problems.append(problem()) }
        }
        if !lookupIsDeferred {
            checkInodeIndex(report)
            checkEntryIndex(report)
        }
        checkLists(report)
        checkLinkedInodes(report)
        checkWideUsage(report)
        return problems
    }

    /// Every wide record of a file in the tree has its sizes in the wide table, and the table
    /// holds nothing else: a freed record that left its entry would lend its sizes to the next.
    private func checkWideUsage(_ report: (@autoclosure () -> String) -> Void) {
        for (file, usage) in wideSizes {
            guard Int(file) < files.count, files[Int(file)].directory != noRecord, files[Int(file)].isWide else {
                report("wide table holds file \(file), which is not a wide record in the tree")
                continue
            }
            if usage.apparent <= UInt64(UInt32.max) && usage.allocated >> 9 <= UInt64(UInt32.max) {
                report("wide table holds file \(file) with sizes that fit its record")
            }
        }
        for index in files.indices where files[index].isWide && wideSizes[UInt32(index)] == nil {
            report("wide file \(index) has no sizes in the wide table")
        }
        for file in wideInodes.keys {
            guard Int(file) < files.count, files[Int(file)].directory != noRecord,
                files[Int(file)].highWordSlot == FileRecord.wideInodeSlot
            else {
                report("wide inode table holds file \(file), which is not such a record in the tree")
                continue
            }
        }
        for index in files.indices
        where files[index].directory != noRecord && files[index].highWordSlot == FileRecord.wideInodeSlot
            && wideInodes[UInt32(index)] == nil
        {
            report("file \(index) has its inode in the wide inode table, which lacks it")
        }
    }

    /// Every live single-named file once, found from its own hash; nothing else.
    private func checkInodeIndex(_ report: (@autoclosure () -> String) -> Void) {
        var seen = Set<UInt32>()
        for value in inodeIndex.storedValues {
            guard Int(value) < files.count, files[Int(value)].directory != noRecord else {
                report("inode index holds file \(value), which is not in the tree")
                continue
            }
            if files[Int(value)].isLinked { report("inode index holds file \(value), which is linked") }
            if !seen.insert(value).inserted { report("inode index holds file \(value) twice") }
            if inodeIndex.find(hash: inodeHash(value), where: { $0 == value }) == nil {
                report("inode index cannot find file \(value) from its hash")
            }
        }
        for index in files.indices where files[index].directory != noRecord && !files[index].isLinked {
            if !seen.contains(UInt32(index)) { report("single-named file \(index) is missing from the inode index") }
        }
    }

    /// Every live file and every live directory but the root once, found from its own hash.
    private func checkEntryIndex(_ report: (@autoclosure () -> String) -> Void) {
        var seen = Set<UInt32>()
        for value in entryIndex.storedValues {
            let isDirectory = value & Self.directoryTag != 0
            let index = Int(value & ~Self.directoryTag)
            let isLive =
                isDirectory
                ? index < directories.count && directories[index].isLive && index != Int(root.rawValue)
                : index < files.count && files[index].directory != noRecord
            guard isLive else {
                report("name index holds \(isDirectory ? "directory" : "file") \(index), which is not in the tree")
                continue
            }
            if !seen.insert(value).inserted { report("name index holds entry \(value) twice") }
            if entryIndex.find(hash: entryHash(value), where: { $0 == value }) == nil {
                report("name index cannot find entry \(value) from its hash")
            }
        }
        let liveFiles = files.indices.filter { files[$0].directory != noRecord }.map { UInt32($0) }
        let liveDirectories = directories.indices.dropFirst().filter { directories[$0].isLive }
        for value in liveFiles + liveDirectories.map({ UInt32($0) | Self.directoryTag }) where !seen.contains(value) {
            report("entry \(value) is missing from the name index")
        }
    }

    /// Each live record reachable from the root exactly once, through live parents.
    private func checkLists(_ report: (@autoclosure () -> String) -> Void) {
        var reachedFiles = 0
        let reachable = subtree(of: root)
        for directory in reachable {
            let record = directories[Int(directory.rawValue)]
            if !record.isLive { report("directory \(directory.rawValue) is listed but freed") }
            if directory != root, !directories[Int(record.parent)].isLive {
                report("directory \(directory.rawValue) has a freed parent \(record.parent)")
            }
            for file in files(in: directory) {
                reachedFiles += 1
                if files[Int(file.rawValue)].directory != directory.rawValue {
                    report("file \(file.rawValue) is listed in \(directory.rawValue) but names another directory")
                }
            }
        }
        if reachable.count != directoryCount {
            report("\(reachable.count) directories are reachable, \(directoryCount) are counted")
        }
        if reachedFiles != fileCount { report("\(reachedFiles) files are reachable, \(fileCount) are counted") }
    }

    /// Each linked inode's per-directory name counts, and each directory's count of linked
    /// names below it, as the linked records say: what a later move or removal subtracts.
    private func checkLinkedInodes(_ report: (@autoclosure () -> String) -> Void) {
        var expected: [InodeKey: [UInt32: UInt32]] = [:]
        var namesBelow: [UInt32: UInt32] = [:]
        for index in files.indices where files[index].directory != noRecord && files[index].isLinked {
            let key = linkedKey(of: UInt32(index))
            var current = files[index].directory
            while current != noRecord {
                expected[key, default: [:]][current, default: 0] += 1
                namesBelow[current, default: 0] += 1
                current = directories[Int(current)].parent
            }
        }
        for (key, inode) in linkedInodes where inode.namesBelow != expected[key] ?? [:] {
            let names = expected[key] ?? [:]
            report("linked inode \(key.inode) on device \(key.device) counts \(inode.namesBelow), its names \(names)")
        }
        for key in expected.keys where linkedInodes[key] == nil {
            report("linked inode \(key.inode) on device \(key.device) has names but no entry")
        }
        for index in directories.indices where directories[index].isLive {
            let counted = directories[index].linkedNames
            let held = namesBelow[UInt32(index), default: 0]
            if counted != held { report("directory \(index) counts \(counted) linked names below it, holds \(held)") }
        }
    }
}
