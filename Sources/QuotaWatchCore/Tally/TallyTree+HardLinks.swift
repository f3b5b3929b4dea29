/// Inodes with several names: each ancestor counts the inode once while at least one of its
/// names lies below, which is `du -s`'s rule for every directory at once.
extension TallyTree {
    func linkedKey(of file: UInt32) -> InodeKey {
        InodeKey(device: directories[Int(files[Int(file)].directory)].device, inode: fileInode(file))
    }

    /// Counts a linked name in its directory and each ancestor below `stop`. `counted` is
    /// what the name already adds to each of them (a single-named file being converted):
    /// only the difference is applied, so a conversion that changes no total marks nothing.
    mutating func attachLinkedName(
        _ file: UInt32, usage: Usage, stoppingAt stop: UInt32 = noRecord, counted: TallyDelta = TallyDelta()
    ) {
        let key = linkedKey(of: file)
        var inode = linkedInodes.removeValue(forKey: key) ?? LinkedInode(usage: usage)
        let usage = inode.usage
        var current = files[Int(file)].directory
        while current != stop && current != noRecord {
            let below = inode.namesBelow[current, default: 0]
            var delta = TallyDelta(files: 1)
            if below == 0 { delta = TallyDelta(adding: usage, files: 1) }
            delta.subtract(counted)
            if !delta.isZero { adjustTally(of: current, by: delta) }
            directories[Int(current)].linkedNames += 1
            inode.namesBelow[current] = below + 1
            current = directories[Int(current)].parent
        }
        linkedInodes[key] = inode
    }

    /// Undoes ``attachLinkedName(_:usage:stoppingAt:counted:)`` for the directories below
    /// `stop`; the inode leaves the table with its last name.
    mutating func detachLinkedName(_ file: UInt32, stoppingAt stop: UInt32 = noRecord) {
        let key = linkedKey(of: file)
        guard var inode = linkedInodes.removeValue(forKey: key) else { return }
        var current = files[Int(file)].directory
        while current != stop && current != noRecord {
            let below = inode.namesBelow[current, default: 1] - 1
            var delta = TallyDelta(files: -1)
            if below == 0 {
                delta = TallyDelta(adding: inode.usage, files: 1).negated
                inode.namesBelow.removeValue(forKey: current)
            } else {
                inode.namesBelow[current] = below
            }
            adjustTally(of: current, by: delta)
            directories[Int(current)].linkedNames -= 1
            current = directories[Int(current)].parent
        }
        if !inode.namesBelow.isEmpty { linkedInodes[key] = inode }
    }

    /// Moves every single-named record of the inode into the hard-link table. Normally there is
    /// one; a live tree can briefly hold a stale second one (a name whose move or removal is
    /// still on its way), and linking all of them keeps the inode counted once per subtree.
    mutating func convertSingleNamedFiles(device: UInt64, inode: UInt64) {
        while let file = findSingleNamedFile(device: device, inode: inode) { convertToLinked(file) }
    }

    /// Moves a single-named file into the hard-link table without changing any total.
    mutating func convertToLinked(_ file: UInt32) {
        guard !files[Int(file)].isLinked else { return }
        inodeIndex.remove(file, hash: inodeHash(file), rehash: inodeHasher)
        files[Int(file)].isLinked = true
        let usage = recordUsage(file)
        attachLinkedName(file, usage: usage, counted: TallyDelta(adding: usage, files: 1))
    }

    /// The inverse of ``convertSingleNamedFiles(device:inode:)``, for a stat that reports one
    /// link: du remembers only inodes with several links, so each name the tree holds (one
    /// directory shown at two places by a bind mount, or a name whose removal is still on its
    /// way) counts on its own again, at the stat's sizes. Every ancestor changes by exactly
    /// the difference, O(depth) per name. No-op for an inode outside the hard-link table.
    package mutating func convertLinkedFilesToSingleNamed(device: UInt64, status: FileStatus) {
        let key = InodeKey(device: device, inode: status.inode)
        let usage = status.storedInFileRecord.usage
        guard !linkedInodes.isEmpty, linkedInodes[key] != nil else { return }
        for file in linkedNames(of: key) {
            detachLinkedName(file)
            files[Int(file)].isLinked = false
            setRecordUsage(usage, of: file)
            let hash = inodeHash(file)
            indexInode(file, hash: hash)
            propagate(TallyDelta(adding: usage, files: 1), from: files[Int(file)].directory)
        }
    }

    /// Every name of a linked inode. A directory holds names directly when it counts more of
    /// them than its counting subdirectories together, and only those directories are searched.
    func linkedNames(of key: InodeKey) -> [UInt32] {
        guard let inode = linkedInodes[key] else { return [] }
        var direct = inode.namesBelow
        for (directory, names) in inode.namesBelow {
            let parent = directories[Int(directory)].parent
            if parent != noRecord, let above = direct[parent] { direct[parent] = above > names ? above - names : 0 }
        }
        var result: [UInt32] = []
        for (directory, names) in direct where names > 0 {
            var remaining = names
            var file = directories[Int(directory)].firstFile
            while file != noRecord && remaining > 0 {
                let record = files[Int(file)]
                if record.isLinked && fileHasInode(file, key.inode) {
                    result.append(file)
                    remaining -= 1
                }
                file = record.nextSibling
            }
        }
        return result
    }

    /// New sizes for a linked inode: every directory that counts it changes once.
    mutating func setLinkedUsage(of file: UInt32, to usage: Usage) {
        let key = linkedKey(of: file)
        guard var inode = linkedInodes[key] else { return }
        let delta = TallyDelta(from: inode.usage, to: usage)
        inode.usage = usage
        linkedInodes[key] = inode
        setRecordUsage(usage, of: file)
        guard !delta.isZero else { return }
        for directory in inode.namesBelow.keys { adjustTally(of: directory, by: delta) }
    }

    /// Every name the tree holds for the inode, single-named or linked: for a change reported
    /// by the inode (a write through a name outside the tree) rather than by one of its names.
    package func files(withInode inode: UInt64, device: UInt64) -> [FileID] {
        if let single = findSingleNamedFile(device: device, inode: inode) { return [FileID(rawValue: single)] }
        return linkedNames(of: InodeKey(device: device, inode: inode)).map(FileID.init(rawValue:))
    }

    /// Linked inodes with names inside `directory`'s subtree, with how many names each has there.
    func linkedInodes(below directory: UInt32) -> [(key: InodeKey, names: UInt32, usage: Usage)] {
        guard directories[Int(directory)].linkedNames > 0 else { return [] }
        var result: [(key: InodeKey, names: UInt32, usage: Usage)] = []
        for (key, inode) in linkedInodes {
            if let names = inode.namesBelow[directory], names > 0 { result.append((key, names, inode.usage)) }
        }
        return result
    }

    /// One name of every inode in the hard-link table, for a re-stat that catches writes made
    /// through names outside the tree. The deepest directory counting an inode holds a name of
    /// it directly, so only that directory's files are searched.
    package func oneNamePerLinkedInode() -> [FileID] {
        var result: [FileID] = []
        for (key, inode) in linkedInodes {
            guard
                let deepest = inode.namesBelow.keys.max(by: {
                    depth(of: DirectoryID(rawValue: $0)) < depth(of: DirectoryID(rawValue: $1))
                })
            else { continue }
            var file = directories[Int(deepest)].firstFile
            while file != noRecord {
                let record = files[Int(file)]
                if record.isLinked && fileHasInode(file, key.inode) {
                    result.append(FileID(rawValue: file))
                    break
                }
                file = record.nextSibling
            }
        }
        return result
    }
}
