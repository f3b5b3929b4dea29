import QuotaWatchCore
import Testing

@Suite("which file systems keep a file's allocation until its next event")
struct AllocationFinalityTests {
    let ext4 = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 4096)

    @Test func ext4KeepsAllocationsOfAtMostFourBlocksWithNoHole() {
        #expect(ext4.isFinal(apparentBytes: 0, allocatedBytes: 0))
        #expect(ext4.isFinal(apparentBytes: 512, allocatedBytes: 4096))
        #expect(ext4.isFinal(apparentBytes: 4 * 4096, allocatedBytes: 4 * 4096), "four extents fit in the inode")
        #expect(!ext4.isFinal(apparentBytes: 5 * 4096, allocatedBytes: 5 * 4096), "a fifth extent needs a tree block")
        #expect(!ext4.isFinal(apparentBytes: 100, allocatedBytes: 5 * 4096), "preallocated past the end: five extents")
        let smallBlocks = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 1024)
        #expect(!smallBlocks.isFinal(apparentBytes: 4096, allocatedBytes: 4 * 4096), "the limit is in blocks")
    }

    @Test func aHoleCanBeFilledThroughAMappingWithNoEvent() {
        #expect(!ext4.isFinal(apparentBytes: 8192, allocatedBytes: 4096))
        #expect(!ext4.isFinal(apparentBytes: 100, allocatedBytes: 0), "inline data, or a hole")
    }

    @Test func otherFileSystemsAndUnknownBlockSizesAreNotTrusted() {
        let xfsMagic: UInt64 = 0x5846_5342
        let btrfsMagic: UInt64 = 0x9123_683E
        let tmpfsMagic: UInt64 = 0x0102_1994
        for type in [xfsMagic, btrfsMagic, tmpfsMagic] {
            let other = AllocationFinality(fileSystemType: type, blockSize: 4096)
            #expect(!other.isFinal(apparentBytes: 4096, allocatedBytes: 4096))
        }
        let unknown = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 0)
        #expect(!unknown.isFinal(apparentBytes: 0, allocatedBytes: 0))
    }
}
