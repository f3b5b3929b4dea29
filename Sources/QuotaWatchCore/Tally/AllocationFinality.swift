/// Whether a regular file's allocation, as a stat taken after its last write shows it, can
/// still change with no event: the question that decides whether a written file is owed its
/// late and writeback re-stats (``LiveTree``), one file system at a time.
///
/// Measured on ext4 with delayed allocation (Linux 6.18, 4 KiB blocks, 2026-12-03; the kernel
/// test `AllocationFinalityKernelTests` checks it again wherever the tests run): `st_blocks`
/// counts the blocks reserved for data not yet written back, so it is right the moment a write
/// returns; what writeback adds later, with no event, is the extent tree's own block, when a
/// file's extents no longer fit in its inode (four of them). A file of at most four blocks
/// cannot have more than four extents, nor more than the twelve direct blocks of a file without
/// extents (the ext2/3 layout). A write through `mmap` raises no event either, and can fill a
/// hole: so only a file with no hole (every block up to its size allocated) is final; a mapping
/// cannot make a file longer. Nothing else is trusted: XFS keeps speculative preallocation in
/// `st_blocks` and trims it later, btrfs and ZFS change `st_blocks` at writeback even for a
/// tiny file, and a file system not measured is not guessed at.
package struct AllocationFinality: Sendable, Equatable {
    /// statfs's `f_type`, the file system's magic number.
    package var fileSystemType: UInt64
    /// statfs's `f_bsize`.
    package var blockSize: UInt64

    package init(fileSystemType: UInt64, blockSize: UInt64) {
        self.fileSystemType = fileSystemType
        self.blockSize = blockSize
    }

    /// ext2, ext3 and ext4 share one magic number.
    package static let ext4Magic: UInt64 = 0xEF53
    /// Extents an ext4 inode holds without a tree block of its own.
    static let extentsInInode: UInt64 = 4

    /// Whether a regular file of `apparentBytes` showing `allocatedBytes` keeps that
    /// allocation until its next event; false wherever that is not known.
    package func isFinal(apparentBytes: UInt64, allocatedBytes: UInt64) -> Bool {
        guard fileSystemType == Self.ext4Magic, blockSize > 0 else { return false }
        let limit = Self.extentsInInode * blockSize
        guard apparentBytes <= limit, allocatedBytes <= limit else { return false }
        let wholeBlocks = (apparentBytes + blockSize - 1) / blockSize * blockSize
        return allocatedBytes >= wholeBlocks
    }
}
