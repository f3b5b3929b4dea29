/// A directory in a ``TallyTree``. Stable while the directory is in the tree; reused after removal.
public struct DirectoryID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "dir#\(rawValue)" }
}

/// A non-directory name in a ``TallyTree``: a regular file, symlink, socket, fifo or device.
public struct FileID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "file#\(rawValue)" }
}

/// What a name in a directory refers to.
public enum TreeEntry: Hashable, Sendable {
    case file(FileID)
    case directory(DirectoryID)
}

/// "No record": the end of a sibling list, the root's parent.
let noRecord: UInt32 = .max

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

struct DirectoryRecord {
    /// Written only through ``TallyTree/adjustTally(of:by:)``, the one path by which any
    /// directory's totals change, so that a directory carrying a rule is never missed.
    private(set) var tally: Tally
    var own: Usage
    var device: UInt64
    var inode: UInt64
    var parent: UInt32
    var nameOffset: UInt32
    var nameLength: UInt8
    var isLive: Bool
    /// Listed in the tree's `dirtyDirectories` since the last drain (kept in padding).
    var isDirty = false
    var firstFile: UInt32 = noRecord
    var firstChild: UInt32 = noRecord
    var nextSibling: UInt32 = noRecord
    var previousSibling: UInt32 = noRecord
    /// Hard-linked names in this subtree; zero lets subtree moves skip the hard-link table.
    var linkedNames: UInt32 = 0
    /// Owner-defined: the engine's watch descriptor or poll state.
    var watch: Int32 = -1
    /// Owner-defined: set for a directory that carries a rule, whose tally changes are
    /// reported by ``TallyTree/drainDirtyDirectories()``.
    var ruleSlot: UInt32 = noRecord

    /// Applies a change to the totals. True when the directory carries a rule slot and has
    /// just become dirty, so the caller lists it.
    mutating func apply(_ delta: TallyDelta) -> Bool {
        tally.apply(delta)
        guard ruleSlot != noRecord, !isDirty else { return false }
        isDirty = true
        return true
    }
}

/// Identity of an inode across the whole machine.
struct InodeKey: Hashable {
    var device: UInt64
    var inode: UInt64
}

/// An inode that may have several names in the tree. Each directory counts it once,
/// while `namesBelow[dir] > 0`, exactly as `du -s dir` does.
struct LinkedInode {
    var usage: Usage
    var namesBelow: [UInt32: UInt32] = [:]
}

/// A signed change to a tally, applied to a chain of ancestors. Sizes are 128-bit and exact:
/// a subtree's total may pass 2⁶⁴ (sparse files of 2⁶³ − 1 bytes on tmpfs), and moving or
/// removing it must take away exactly what it added.
struct TallyDelta {
    var allocated: Int128 = 0
    var apparent: Int128 = 0
    var files: Int64 = 0
    var dirs: Int64 = 0

    init(allocated: Int128 = 0, apparent: Int128 = 0, files: Int64 = 0, dirs: Int64 = 0) {
        self.allocated = allocated
        self.apparent = apparent
        self.files = files
        self.dirs = dirs
    }

    init(adding usage: Usage, files: Int64 = 0, dirs: Int64 = 0) {
        self.init(allocated: Int128(usage.allocated), apparent: Int128(usage.apparent), files: files, dirs: dirs)
    }

    init(from old: Usage, to new: Usage) {
        self.init(
            allocated: Int128(new.allocated) - Int128(old.allocated),
            apparent: Int128(new.apparent) - Int128(old.apparent))
    }

    mutating func subtract(_ other: TallyDelta) {
        allocated &-= other.allocated
        apparent &-= other.apparent
        files &-= other.files
        dirs &-= other.dirs
    }

    var negated: TallyDelta {
        TallyDelta(allocated: 0 &- allocated, apparent: 0 &- apparent, files: 0 &- files, dirs: 0 &- dirs)
    }

    var isZero: Bool { allocated == 0 && apparent == 0 && files == 0 && dirs == 0 }
}

/// The high words of a directory's sizes when they pass 2⁶⁴ − 1: the true total is
/// `carry × 2⁶⁴ + tally`. Kept aside (``TallyTree/overflowCarries``), since only sparse files
/// can claim that much and the record stays small.
struct OverflowCarry {
    var allocated: Int64 = 0
    var apparent: Int64 = 0

    var isZero: Bool { allocated == 0 && apparent == 0 }

    /// A low word with this carry, as du shows a total: past 2⁶⁴ − 1 it stops there.
    static func saturated(_ low: UInt64, carry: Int64) -> UInt64 {
        carry > 0 ? .max : carry < 0 ? 0 : low
    }
}

extension Tally {
    /// The low 64 bits of each size; ``TallyTree/adjustTally(of:by:)`` keeps what carries
    /// out of them, so the totals stay exact past 2⁶⁴.
    mutating func apply(_ delta: TallyDelta) {
        usage.allocated = UInt64(truncatingIfNeeded: Int128(usage.allocated) &+ delta.allocated)
        usage.apparent = UInt64(truncatingIfNeeded: Int128(usage.apparent) &+ delta.apparent)
        files &+= UInt64(bitPattern: delta.files)
        dirs &+= UInt64(bitPattern: delta.dirs)
    }
}
