/// Twenty-eight bytes per non-directory name. Sizes are kept so that a later delete can be
/// subtracted without a stat; the inode is kept so that a new hard link to it can be found.
/// The name's length lives in the ``NameArena`` before its bytes.
///
/// The inode's low 32 bits are here and its high 32 bits are one of a few the tree keeps
/// (`inodeHighWords`), named by a 4-bit slot: ext4 and most trees have only 0; XFS's inodes
/// above 2³² share a few high words (their allocation group's), an overlayfs with xino one a
/// layer. Past 15 high words a file's whole inode is in the tree's `wideInodes`. Read and
/// written only through ``TallyTree/fileInode(_:)`` and ``TallyTree/setFileInode(_:of:)``.
///
/// Both sizes fit 32 bits for nearly every file: st_size under 4 GiB and st_blocks under
/// 2 TiB. A file past either is "wide": its record holds zeroes and its sizes live in the
/// tree's `wideSizes` table, read and written only through ``TallyTree/recordUsage(_:)`` and
/// ``TallyTree/setRecordUsage(_:of:)``.
struct FileRecord {
    var inodeLow: UInt32
    /// `st_size`, unless the record is wide.
    var apparent: UInt32
    /// Allocated 512-byte blocks, unless the record is wide.
    var blocks: UInt32
    /// The directory in the low 26 bits (all ones: none, a free record), the inode's high-word
    /// slot in the next 4, the wide flag and the linked flag above.
    private var directoryAndFlags: UInt32
    var nextSibling: UInt32
    var previousSibling: UInt32
    var nameOffset: UInt32

    static let directoryMask: UInt32 = (1 << 26) - 1
    static let highWordShift: UInt32 = 26
    static let highWordMask: UInt32 = 0xF << highWordShift
    /// The slot that means "the whole inode is in the tree's `wideInodes`".
    static let wideInodeSlot: UInt32 = 15
    static let linkedFlag: UInt32 = 1 << 31
    static let wideFlag: UInt32 = 1 << 30
    /// Directory numbers a record can hold: all below ``directoryMask``, which means none.
    static let directoryLimit = directoryMask

    /// A record whose inode is still to be set (``TallyTree/setFileInode(_:of:)``).
    init(directory: UInt32, nameOffset: UInt32) {
        inodeLow = 0
        apparent = 0
        blocks = 0
        directoryAndFlags = directory & Self.directoryMask
        nextSibling = noRecord
        previousSibling = noRecord
        self.nameOffset = nameOffset
    }

    /// The containing directory, or `noRecord` for a free record. Setting it keeps the flags.
    var directory: UInt32 {
        get {
            let directory = directoryAndFlags & Self.directoryMask
            return directory == Self.directoryMask ? noRecord : directory
        }
        set { directoryAndFlags = (directoryAndFlags & ~Self.directoryMask) | (newValue & Self.directoryMask) }
    }

    /// Which of the tree's `inodeHighWords` holds the inode's high 32 bits;
    /// ``wideInodeSlot``: the whole inode is in `wideInodes`.
    var highWordSlot: UInt32 {
        get { (directoryAndFlags & Self.highWordMask) >> Self.highWordShift }
        set { directoryAndFlags = (directoryAndFlags & ~Self.highWordMask) | (newValue << Self.highWordShift) }
    }

    /// The inode may have other names; its sizes live in the hard-link table.
    var isLinked: Bool {
        get { directoryAndFlags & Self.linkedFlag != 0 }
        set {
            directoryAndFlags = newValue ? directoryAndFlags | Self.linkedFlag : directoryAndFlags & ~Self.linkedFlag
        }
    }

    /// The sizes did not fit the two 32-bit fields; they are in the tree's `wideSizes`.
    var isWide: Bool {
        get { directoryAndFlags & Self.wideFlag != 0 }
        set { directoryAndFlags = newValue ? directoryAndFlags | Self.wideFlag : directoryAndFlags & ~Self.wideFlag }
    }

    /// The sizes of a record that is not wide.
    var narrowUsage: Usage { Usage(allocated: UInt64(blocks) << 9, apparent: UInt64(apparent)) }

    /// The largest allocated size a record holds: 2⁴⁸ − 1 blocks of 512 bytes, about 144 PB
    /// (the wide table could hold more; the limit is kept so that totals stay what they were).
    static let largestAllocated: UInt64 = ((1 << 48) - 1) << 9
}

extension TallyTree {
    /// A file record's inode.
    func fileInode(_ file: UInt32) -> UInt64 {
        Self.fileInode(file, files: files, highWords: inodeHighWords, wideInodes: wideInodes)
    }

    static func fileInode(
        _ file: UInt32, files: [FileRecord], highWords: [UInt32], wideInodes: [UInt32: UInt64]
    ) -> UInt64 {
        let record = files[Int(file)]
        let slot = record.highWordSlot
        if slot == FileRecord.wideInodeSlot { return wideInodes[file] ?? 0 }
        return UInt64(highWords[Int(slot)]) << 32 | UInt64(record.inodeLow)
    }

    /// Whether a file record's inode is `inode`: the low word decides nearly every time.
    func fileHasInode(_ file: UInt32, _ inode: UInt64) -> Bool {
        files[Int(file)].inodeLow == UInt32(truncatingIfNeeded: inode) && fileInode(file) == inode
    }

    /// Stores an inode in a file record: the low word in it, the high word as a slot of
    /// `inodeHighWords` (a new high word takes the next free slot), or, once the 15 slots
    /// are taken, the whole inode in `wideInodes`.
    mutating func setFileInode(_ inode: UInt64, of file: UInt32) {
        let high = UInt32(truncatingIfNeeded: inode >> 32)
        files[Int(file)].inodeLow = UInt32(truncatingIfNeeded: inode)
        var slot = inodeHighWords.firstIndex(of: high)
        if slot == nil && inodeHighWords.count < Int(FileRecord.wideInodeSlot) {
            inodeHighWords.append(high)
            slot = inodeHighWords.count - 1
        }
        if let slot {
            if files[Int(file)].highWordSlot == FileRecord.wideInodeSlot { wideInodes[file] = nil }
            files[Int(file)].highWordSlot = UInt32(slot)
        } else {
            files[Int(file)].highWordSlot = FileRecord.wideInodeSlot
            wideInodes[file] = inode
        }
    }

    /// The sizes a file record holds, from the record or, for a wide one, the wide table.
    func recordUsage(_ file: UInt32) -> Usage {
        let record = files[Int(file)]
        guard record.isWide else { return record.narrowUsage }
        return wideSizes[file] ?? .zero
    }

    /// Stores sizes in a file record, in the wide table when they do not fit 32 bits each.
    mutating func setRecordUsage(_ usage: Usage, of file: UInt32) {
        let blocks = usage.allocated >> 9
        if usage.apparent <= UInt64(UInt32.max) && blocks <= UInt64(UInt32.max) {
            files[Int(file)].apparent = UInt32(usage.apparent)
            files[Int(file)].blocks = UInt32(blocks)
            if files[Int(file)].isWide {
                files[Int(file)].isWide = false
                wideSizes[file] = nil
            }
        } else {
            files[Int(file)].apparent = 0
            files[Int(file)].blocks = 0
            files[Int(file)].isWide = true
            wideSizes[file] = usage
        }
    }
}

extension FileStatus {
    /// The sizes a file record keeps of this status: what ``TallyTree/usage(of:)`` returns
    /// after the file is updated with it.
    package var recordedUsage: Usage { storedInFileRecord.usage }

    /// The status as a ``FileRecord`` keeps it: allocated bytes in whole 512-byte blocks, at
    /// most ``FileRecord/largestAllocated`` (only a file system that lies reports more). What a
    /// name adds to the totals is what its removal subtracts, so the two must be the same value.
    var storedInFileRecord: FileStatus {
        guard allocatedBytes > FileRecord.largestAllocated || allocatedBytes & 511 != 0 else { return self }
        var stored = self
        stored.allocatedBytes = min(allocatedBytes, FileRecord.largestAllocated) & ~511
        return stored
    }
}
