/// Forty bytes per non-directory name. Sizes are kept so that a later delete can be
/// subtracted without a stat; the inode is kept so that a new hard link to it can be found.
struct FileRecord {
    var apparent: UInt64
    var inode: UInt64
    /// Allocated 512-byte blocks in the low 48 bits, name length and flags above.
    var packed: UInt64
    var directory: UInt32
    var nextSibling: UInt32
    var previousSibling: UInt32
    var nameOffset: UInt32

    static let blockMask: UInt64 = (1 << 48) - 1
    static let linkedFlag: UInt64 = 1 << 56

    var allocatedBlocks: UInt64 {
        get { packed & Self.blockMask }
        set { packed = (packed & ~Self.blockMask) | (newValue & Self.blockMask) }
    }
    var nameLength: UInt8 {
        get { UInt8(truncatingIfNeeded: packed >> 48) }
        set { packed = (packed & ~(0xff << 48)) | (UInt64(newValue) << 48) }
    }
    /// The inode may have other names; its sizes live in the hard-link table.
    var isLinked: Bool {
        get { packed & Self.linkedFlag != 0 }
        set { packed = newValue ? packed | Self.linkedFlag : packed & ~Self.linkedFlag }
    }
    var usage: Usage { Usage(allocated: allocatedBlocks << 9, apparent: apparent) }

    /// The largest allocated size a record holds: 2⁴⁸ − 1 blocks of 512 bytes, about 144 PB.
    static let largestAllocated: UInt64 = blockMask << 9
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
