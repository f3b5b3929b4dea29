extension TallyTree {
    /// Adds a non-directory name. The caller guarantees the name is not already present.
    @discardableResult
    package mutating func addFile(
        named name: some Collection<UInt8>, in directory: DirectoryID, status: FileStatus
    )
        -> FileID
    {
        addPropagating(named: name, in: directory, status: status)
    }

    /// The same for a name held in an array, specialized for the engine, which calls it
    /// from another module.
    @discardableResult
    package mutating func addFile(named name: [UInt8], in directory: DirectoryID, status: FileStatus) -> FileID {
        addPropagating(named: name, in: directory, status: status)
    }

    private mutating func addPropagating(
        named name: some Collection<UInt8>, in directory: DirectoryID, status: FileStatus
    ) -> FileID {
        var pending = TallyDelta()
        let id = addFile(named: name, in: directory, status: status, deferring: &pending)
        if !pending.isZero { propagate(pending, from: directory.rawValue) }
        return id
    }

    /// Adds a file, leaving a single-named file's share of the ancestors' totals in `pending`
    /// so a whole listing can be propagated at once.
    mutating func addFile(
        named name: some Collection<UInt8>, in directory: DirectoryID, status: FileStatus,
        deferring pending: inout TallyDelta
    ) -> FileID {
        let status = status.storedInFileRecord
        let parent = directory.rawValue
        let device = directories[Int(parent)].device
        // Only a name whose inode reports other links can share it with a file already here.
        // A second name for an inode first seen with one name: from now on all are counted
        // through the hard-link table. Both ways: one link means every name counts on its own
        // again, as du counts it. Done before the new record exists, which the inode table's
        // growth during the conversion would otherwise index twice (see indexInode).
        if status.mayHaveOtherNames {
            convertSingleNamedFiles(device: device, inode: status.inode)
        } else {
            convertLinkedFilesToSingleNamed(device: device, status: status)
        }
        let id = allocateFile(FileRecord(directory: parent, nameOffset: names.append(name)))
        setFileInode(status.inode, of: id)
        setRecordUsage(status.usage, of: id)
        indexEntry(id, hash: hashName(parent: parent, name))
        linkFileIntoDirectory(id)
        fileCount += 1

        if status.mayHaveOtherNames {
            files[Int(id)].isLinked = true
            attachLinkedName(id, usage: status.usage)
            setLinkedUsage(of: id, to: status.usage)
        } else {
            indexInode(id, hash: hashInode(device: device, inode: status.inode))
            pending.allocated &+= Int128(status.usage.allocated)
            pending.apparent &+= Int128(status.usage.apparent)
            pending.files += 1
        }
        return FileID(rawValue: id)
    }

    /// Applies a fresh stat of a file already in the tree.
    package mutating func updateFile(_ file: FileID, status: FileStatus) {
        let status = status.storedInFileRecord
        let id = file.rawValue
        let record = files[Int(id)]
        if !fileHasInode(id, status.inode) {
            // Another inode now has this name (replaced behind our back): start over.
            let name = Array(self.name(of: file))
            let directory = self.directory(containing: file)
            removeFile(file, trimmingRecords: false)
            let replacement = addFile(named: name, in: directory, status: status)
            precondition(replacement == file, "a freed file slot is reused first")
            return
        }
        if record.isLinked && status.mayHaveOtherNames {
            setLinkedUsage(of: id, to: status.usage)
            return
        }
        if record.isLinked {
            // The link count dropped to one (the other names went, inside the tree or out).
            let device = directories[Int(record.directory)].device
            convertLinkedFilesToSingleNamed(device: device, status: status)
            return
        }
        if status.mayHaveOtherNames {
            convertSingleNamedFiles(device: directories[Int(record.directory)].device, inode: status.inode)
            setLinkedUsage(of: id, to: status.usage)
            return
        }
        let delta = TallyDelta(from: recordUsage(id), to: status.usage)
        setRecordUsage(status.usage, of: id)
        if !delta.isZero { propagate(delta, from: record.directory) }
    }

    /// Removes a non-directory name, subtracting what it contributed.
    package mutating func removeFile(_ file: FileID) { removeFile(file, trimmingRecords: true) }

    /// Without trimming, the freed record is the next one handed out.
    private mutating func removeFile(_ file: FileID, trimmingRecords: Bool) {
        let id = file.rawValue
        detachFile(id)
        names.release(at: files[Int(id)].nameOffset)
        freeFileRecord(id)
        fileCount -= 1
        if trimmingRecords { releaseSpareMemory() }
    }

    /// Renames a file, possibly into another directory. A name already at the target must
    /// have been removed first.
    package mutating func moveFile(_ file: FileID, to directory: DirectoryID, named name: some Collection<UInt8>) {
        let id = file.rawValue
        let usage = self.usage(of: file)
        // The directories above both places keep their totals: only the two branches below
        // them change, so a rename within a directory touches no total at all. Not so for a
        // linked name moved to another device (a stale record taken into a mount): it leaves
        // its inode's entry, keyed by device, for another one, and every ancestor changes.
        let from = files[Int(id)].directory
        let crossesDevices = directories[Int(from)].device != directories[Int(directory.rawValue)].device
        let common =
            crossesDevices && files[Int(id)].isLinked ? noRecord : lowestCommonAncestor(from, directory.rawValue)
        detachFile(id, keepingFrom: common)
        names.release(at: files[Int(id)].nameOffset)
        files[Int(id)].nameOffset = names.append(name)
        files[Int(id)].directory = directory.rawValue
        indexEntry(id, hash: hashName(parent: directory.rawValue, name))
        linkFileIntoDirectory(id)
        if files[Int(id)].isLinked {
            attachLinkedName(id, usage: usage, stoppingAt: common)
        } else {
            let hash = inodeHash(id)
            indexInode(id, hash: hash)
            propagate(TallyDelta(adding: usage, files: 1), from: directory.rawValue, stoppingAt: common)
        }
        compactNamesIfNeeded()
    }

    // MARK: Internals

    /// Puts a record at the head of the free list, which is linked both ways (through the
    /// sibling fields) so that a free record at the end of the array can leave it in O(1).
    mutating func freeFileRecord(_ id: UInt32) {
        if files[Int(id)].isWide {
            files[Int(id)].isWide = false
            wideSizes[id] = nil
        }
        if files[Int(id)].highWordSlot == FileRecord.wideInodeSlot {
            files[Int(id)].highWordSlot = 0
            wideInodes[id] = nil
        }
        files[Int(id)].directory = noRecord
        files[Int(id)].nextSibling = freeFile
        files[Int(id)].previousSibling = noRecord
        if freeFile != noRecord { files[Int(freeFile)].previousSibling = id }
        freeFile = id
    }

    /// Drops the free records at the end of the array, and gives back its storage once it is
    /// mostly unused: after a storm of files has come and gone, the array follows the tree.
    /// Each record leaves once for each time it was appended, so this is amortised O(1).
    mutating func trimFreeFileRecords() {
        while let last = files.last, last.directory == noRecord {
            if last.previousSibling != noRecord {
                files[Int(last.previousSibling)].nextSibling = last.nextSibling
            } else {
                freeFile = last.nextSibling
            }
            if last.nextSibling != noRecord { files[Int(last.nextSibling)].previousSibling = last.previousSibling }
            files.removeLast()
        }
        if files.capacity > 4096 && files.count * 4 < files.capacity {
            var fitted: [FileRecord] = []
            fitted.reserveCapacity(files.count * 2)
            fitted.append(contentsOf: files)
            files = fitted
        }
    }

    private mutating func allocateFile(_ record: FileRecord) -> UInt32 {
        if freeFile != noRecord {
            let id = freeFile
            freeFile = files[Int(id)].nextSibling
            if freeFile != noRecord { files[Int(freeFile)].previousSibling = noRecord }
            files[Int(id)] = record
            return id
        }
        files.append(record)
        return UInt32(files.count - 1)
    }

    private mutating func linkFileIntoDirectory(_ id: UInt32) {
        let parent = Int(files[Int(id)].directory)
        let head = directories[parent].firstFile
        files[Int(id)].nextSibling = head
        files[Int(id)].previousSibling = noRecord
        if head != noRecord { files[Int(head)].previousSibling = id }
        directories[parent].firstFile = id
    }

    /// Takes the file out of its directory's list, the indexes and its ancestors' totals below
    /// `stop`, keeping the record itself.
    private mutating func detachFile(_ id: UInt32, keepingFrom stop: UInt32 = noRecord) {
        let record = files[Int(id)]
        entryIndex.remove(id, hash: entryHash(id), rehash: entryHasher)
        if record.previousSibling != noRecord {
            files[Int(record.previousSibling)].nextSibling = record.nextSibling
        } else {
            directories[Int(record.directory)].firstFile = record.nextSibling
        }
        if record.nextSibling != noRecord { files[Int(record.nextSibling)].previousSibling = record.previousSibling }
        if record.isLinked {
            detachLinkedName(id, stoppingAt: stop)
        } else {
            inodeIndex.remove(id, hash: inodeHash(id), rehash: inodeHasher)
            propagate(TallyDelta(adding: recordUsage(id), files: 1).negated, from: record.directory, stoppingAt: stop)
        }
    }
}
