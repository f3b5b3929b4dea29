extension TallyTree {
    /// Adds an empty directory. The caller guarantees the name is not already present.
    @discardableResult
    package mutating func addDirectory(
        named name: some Collection<UInt8>, in parent: DirectoryID, status: FileStatus
    )
        -> DirectoryID
    {
        let record = DirectoryRecord(
            tally: Tally(usage: status.usage, files: 0, dirs: 0), own: status.usage,
            device: status.device, inode: status.inode, parent: parent.rawValue,
            nameOffset: names.append(name), isLive: true)
        let id = allocateDirectory(record)
        indexEntry(id | Self.directoryTag, hash: hashName(parent: parent.rawValue, name))
        linkDirectoryIntoParent(id)
        directoryCount += 1
        propagate(TallyDelta(adding: status.usage, dirs: 1), from: parent.rawValue)
        return DirectoryID(rawValue: id)
    }

    /// A fresh stat of the directory's own inode (directories grow as entries are added).
    package mutating func updateDirectory(_ directory: DirectoryID, status: FileStatus) {
        let index = Int(directory.rawValue)
        let delta = TallyDelta(from: directories[index].own, to: status.usage)
        directories[index].own = status.usage
        directories[index].inode = status.inode
        if !delta.isZero { propagate(delta, from: directory.rawValue) }
    }

    /// Removes a directory and everything below it.
    package mutating func removeDirectory(_ directory: DirectoryID) {
        precondition(directory != root, "the root is never removed")
        let id = directory.rawValue
        detachSubtree(id, keepingFrom: noRecord)
        entryIndex.remove(id | Self.directoryTag, hash: entryHash(id | Self.directoryTag), rehash: entryHasher)
        unlinkDirectoryFromParent(id)
        freeSubtree(id)
        releaseSpareMemory()
    }

    /// Renames a directory, possibly under another parent, carrying its whole subtree.
    /// A name already at the target must have been removed first.
    package mutating func moveDirectory(
        _ directory: DirectoryID, to newParent: DirectoryID, named name: some Collection<UInt8>
    ) {
        precondition(!isDescendant(newParent, of: directory), "a directory cannot move below itself")
        let id = directory.rawValue
        let oldParent = directories[Int(id)].parent
        let common = lowestCommonAncestor(oldParent, newParent.rawValue)
        entryIndex.remove(id | Self.directoryTag, hash: entryHash(id | Self.directoryTag), rehash: entryHasher)
        let linked = linkedInodes(below: id)
        detachSubtree(id, keepingFrom: common, linked: linked)
        unlinkDirectoryFromParent(id)

        names.release(at: directories[Int(id)].nameOffset)
        directories[Int(id)].nameOffset = names.append(name)
        directories[Int(id)].parent = newParent.rawValue
        indexEntry(id | Self.directoryTag, hash: hashName(parent: newParent.rawValue, name))
        linkDirectoryIntoParent(id)
        attachSubtree(id, stoppingAt: common, linked: linked)
        compactNamesIfNeeded()
    }

    // MARK: Internals

    private mutating func allocateDirectory(_ record: DirectoryRecord) -> UInt32 {
        if freeDirectory != noRecord {
            let id = freeDirectory
            freeDirectory = directories[Int(id)].nextSibling
            directories[Int(id)] = record
            return id
        }
        // A file record keeps its directory's number in 26 bits: 67 108 863 directories. A
        // tree that large would hold several GiB of records; fatalError, unlike precondition,
        // says why in a release build too.
        if directories.count >= FileRecord.directoryLimit {
            fatalError(
                "the tree holds more than \(FileRecord.directoryLimit - 1) directories, more than one root "
                    + "can count; serve its subtrees as separate roots (run ROOT ROOT…)")
        }
        directories.append(record)
        return UInt32(directories.count - 1)
    }

    private mutating func linkDirectoryIntoParent(_ id: UInt32) {
        let parent = Int(directories[Int(id)].parent)
        let head = directories[parent].firstChild
        directories[Int(id)].nextSibling = head
        directories[Int(id)].previousSibling = noRecord
        if head != noRecord { directories[Int(head)].previousSibling = id }
        directories[parent].firstChild = id
    }

    private mutating func unlinkDirectoryFromParent(_ id: UInt32) {
        let record = directories[Int(id)]
        if record.previousSibling != noRecord {
            directories[Int(record.previousSibling)].nextSibling = record.nextSibling
        } else {
            directories[Int(record.parent)].firstChild = record.nextSibling
        }
        if record.nextSibling != noRecord {
            directories[Int(record.nextSibling)].previousSibling = record.previousSibling
        }
    }

    /// The deepest directory that is `first` or above it and `second` or above it.
    func lowestCommonAncestor(_ first: UInt32, _ second: UInt32) -> UInt32 {
        var (first, second) = (first, second)
        var (firstDepth, secondDepth) = (
            depth(of: DirectoryID(rawValue: first)), depth(of: DirectoryID(rawValue: second))
        )
        while firstDepth > secondDepth {
            first = directories[Int(first)].parent
            firstDepth -= 1
        }
        while secondDepth > firstDepth {
            second = directories[Int(second)].parent
            secondDepth -= 1
        }
        while first != second {
            first = directories[Int(first)].parent
            second = directories[Int(second)].parent
        }
        return first
    }

    /// What a subtree adds to each ancestor apart from its linked inodes, which each ancestor
    /// counts once however many subtrees hold their names: every name and directory, and the
    /// sizes of everything else.
    private func singleNamedShare(
        of id: UInt32, linked: [(key: InodeKey, names: UInt32, usage: Usage)]
    ) -> TallyDelta {
        let tally = directories[Int(id)].tally
        var (allocated, apparent) = wideUsage(of: id)
        for entry in linked {
            allocated -= Int128(entry.usage.allocated)
            apparent -= Int128(entry.usage.apparent)
        }
        return TallyDelta(
            allocated: allocated, apparent: apparent, files: Int64(tally.files), dirs: Int64(tally.dirs) + 1)
    }

    /// Takes the subtree's contribution out of its ancestors, from its parent up to (not
    /// including) `stop`. Linked inodes leave only the ancestors where their last name goes.
    private mutating func detachSubtree(
        _ id: UInt32, keepingFrom stop: UInt32, linked: [(key: InodeKey, names: UInt32, usage: Usage)]? = nil
    ) {
        let linked = linked ?? linkedInodes(below: id)
        let parent = directories[Int(id)].parent
        propagate(singleNamedShare(of: id, linked: linked).negated, from: parent, stoppingAt: stop)
        let linkedNames = directories[Int(id)].linkedNames
        for entry in linked {
            var inode = linkedInodes[entry.key]!
            var current = parent
            while current != stop && current != noRecord {
                let below = inode.namesBelow[current, default: 0] - entry.names
                if below == 0 {
                    inode.namesBelow.removeValue(forKey: current)
                    adjustTally(of: current, by: TallyDelta(adding: inode.usage).negated)
                } else {
                    inode.namesBelow[current] = below
                }
                current = directories[Int(current)].parent
            }
            linkedInodes[entry.key] = inode
        }
        var current = parent
        while current != stop && current != noRecord {
            directories[Int(current)].linkedNames -= linkedNames
            current = directories[Int(current)].parent
        }
    }

    /// The inverse of ``detachSubtree(_:keepingFrom:linked:)`` at the subtree's new place.
    private mutating func attachSubtree(
        _ id: UInt32, stoppingAt stop: UInt32, linked: [(key: InodeKey, names: UInt32, usage: Usage)]
    ) {
        let parent = directories[Int(id)].parent
        propagate(singleNamedShare(of: id, linked: linked), from: parent, stoppingAt: stop)
        let linkedNames = directories[Int(id)].linkedNames
        for entry in linked {
            var inode = linkedInodes[entry.key]!
            var current = parent
            while current != stop && current != noRecord {
                let below = inode.namesBelow[current, default: 0]
                if below == 0 { adjustTally(of: current, by: TallyDelta(adding: inode.usage)) }
                inode.namesBelow[current] = below + entry.names
                current = directories[Int(current)].parent
            }
            linkedInodes[entry.key] = inode
        }
        var current = parent
        while current != stop && current != noRecord {
            directories[Int(current)].linkedNames += linkedNames
            current = directories[Int(current)].parent
        }
    }

    /// Frees every record in the subtree. Its ancestors were already settled by
    /// ``detachSubtree(_:keepingFrom:linked:)``; only the hard-link table still names these
    /// directories, and those counts are dropped here.
    private mutating func freeSubtree(_ id: UInt32) {
        for directory in subtree(of: DirectoryID(rawValue: id)).reversed() {
            let index = Int(directory.rawValue)
            var file = directories[index].firstFile
            while file != noRecord {
                let record = files[Int(file)]
                entryIndex.remove(file, hash: entryHash(file), rehash: entryHasher)
                if record.isLinked {
                    forgetLinkedName(file, upTo: id)
                } else {
                    inodeIndex.remove(file, hash: inodeHash(file), rehash: inodeHasher)
                }
                names.release(at: record.nameOffset)
                freeFileRecord(file)
                fileCount -= 1
                file = record.nextSibling
            }
            if directory.rawValue != id {
                let tagged = directory.rawValue | Self.directoryTag
                entryIndex.remove(tagged, hash: entryHash(tagged), rehash: entryHasher)
            }
            names.release(at: directories[index].nameOffset)
            directories[index].isLive = false
            directories[index].firstFile = noRecord
            directories[index].firstChild = noRecord
            directories[index].nextSibling = freeDirectory
            if !overflowCarries.isEmpty { overflowCarries[directory.rawValue] = nil }
            freeDirectory = directory.rawValue
            directoryCount -= 1
        }
    }

    /// Drops a linked name's counts for the directories from its own up to `top`, inclusive.
    private mutating func forgetLinkedName(_ file: UInt32, upTo top: UInt32) {
        let key = linkedKey(of: file)
        guard var inode = linkedInodes.removeValue(forKey: key) else { return }
        var current = files[Int(file)].directory
        while current != noRecord {
            let below = inode.namesBelow[current, default: 1] - 1
            if below == 0 { inode.namesBelow.removeValue(forKey: current) } else { inode.namesBelow[current] = below }
            if current == top { break }
            current = directories[Int(current)].parent
        }
        if !inode.namesBelow.isEmpty { linkedInodes[key] = inode }
    }
}
