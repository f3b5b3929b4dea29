import Testing

@testable import QuotaWatchCore

/// The per-file cost the README promises is the file record's size: a field added to it, or
/// reordered so padding creeps in, shows here rather than in an RSS measurement later.
@Suite("Record layout")
struct RecordLayoutTests {
    @Test("a file record is 28 bytes, with no padding, and packs into an array at 28")
    func fileRecordIsTwentyEightBytes() {
        #expect(MemoryLayout<FileRecord>.size == 28)
        #expect(MemoryLayout<FileRecord>.stride == 28)
        #expect(MemoryLayout<FileRecord>.alignment == 4)
    }

    @Test("the directory word keeps 26 bits of directory, the high-word slot and both flags apart")
    func directoryAndFlagsDoNotOverlap() {
        var record = FileRecord(directory: FileRecord.directoryLimit - 1, nameOffset: 0)
        record.isLinked = true
        record.isWide = true
        record.highWordSlot = FileRecord.wideInodeSlot
        #expect(record.directory == FileRecord.directoryLimit - 1)
        #expect(record.isLinked && record.isWide && record.highWordSlot == FileRecord.wideInodeSlot)
        record.directory = noRecord
        #expect(record.directory == noRecord)
        #expect(record.isLinked && record.isWide && record.highWordSlot == FileRecord.wideInodeSlot)
        record.isLinked = false
        record.highWordSlot = 6
        #expect(!record.isLinked && record.isWide && record.highWordSlot == 6)
        record.isWide = false
        record.directory = 5
        #expect(record.directory == 5 && !record.isLinked && !record.isWide && record.highWordSlot == 6)
    }

    @Test("inodes past 2³²: 15 high words in slots, the rest whole in the wide inode table, all exact")
    func inodesPastThirtyTwoBitsStayExact() {
        let directory = FileStatus(
            device: 7, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
        var tree = TallyTree(root: directory)
        func status(_ inode: UInt64, links: UInt64 = 1) -> FileStatus {
            FileStatus(
                device: 7, inode: inode, kind: .regular, linkCount: links, apparentBytes: 10, allocatedBytes: 512)
        }
        // 20 high words, the same low word: the low word alone tells none of them apart.
        let inodes = (0..<20).map { UInt64($0) << 32 | 5 }
        let ids = inodes.enumerated().map { index, inode in
            tree.addFile(named: Array("f\(index)".utf8), in: tree.root, status: status(inode))
        }
        #expect(tree.inodeHighWords.count == 15 && tree.wideInodes.count == 5)
        for (id, inode) in zip(ids, inodes) {
            #expect(tree.inode(of: id) == inode)
            #expect(tree.singleNamedFile(device: 7, inode: inode) == id)
        }
        #expect(tree.consistencyViolations().isEmpty)
        // A name now holding another inode with the same low word is a replacement.
        tree.updateFile(ids[0], status: status(inodes[1] + (100 << 32)))
        #expect(tree.inode(of: ids[0]) == inodes[1] + (100 << 32))
        #expect(tree.singleNamedFile(device: 7, inode: inodes[0]) == nil)
        // A second name for a wide inode: linked, counted once.
        let link = tree.addFile(named: Array("link".utf8), in: tree.root, status: status(inodes[19], links: 2))
        #expect(tree.tally(of: tree.root).usage == Usage(allocated: 4096 + 512 * 20, apparent: 4096 + 10 * 20))
        #expect(tree.consistencyViolations().isEmpty)
        // Removed, a wide record leaves the table, and its reused record starts in a slot.
        tree.removeFile(link)
        for id in ids.suffix(6) { tree.removeFile(id) }
        #expect(tree.wideInodes.count == 1, "only the replaced name's inode, with no slot free, stays wide")
        let reused = tree.addFile(named: Array("again".utf8), in: tree.root, status: status(77))
        #expect(tree.inode(of: reused) == 77 && tree.files[Int(reused.rawValue)].highWordSlot == 0)
        #expect(tree.consistencyViolations().isEmpty)
    }

    @Test("a name's length lives before its bytes; offset 0 is the empty name")
    func namesCarryTheirLength() {
        var arena = NameArena()
        #expect(arena.name(at: NameArena.emptyName).isEmpty)
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 255)
        let first = arena.append(long)
        let second = arena.append(Array("b".utf8))
        #expect(Array(arena.name(at: first)) == long)
        #expect(Array(arena.name(at: second)) == Array("b".utf8))
        #expect(arena.equals(offset: second, Array("b".utf8)))
        #expect(!arena.equals(offset: second, Array("bb".utf8)))
        arena.release(at: first)
        #expect(arena.garbage == 256)
    }

    @Test("sizes past 32 bits go to the wide table and back, exactly, through updates and removal")
    func wideSizesStayExact() {
        let directory = FileStatus(
            device: 7, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
        var tree = TallyTree(root: directory)
        func status(_ inode: UInt64, apparent: UInt64, allocated: UInt64, links: UInt64 = 1) -> FileStatus {
            FileStatus(
                device: 7, inode: inode, kind: .regular, linkCount: links, apparentBytes: apparent,
                allocatedBytes: allocated)
        }
        let bigApparent: UInt64 = 5 << 30  // 5 GiB: past UInt32 bytes
        let bigAllocated: UInt64 = 3 << 40  // 3 TiB: past UInt32 blocks
        let image = tree.addFile(
            named: Array("image".utf8), in: tree.root, status: status(2, apparent: bigApparent, allocated: 4096))
        let sparse = tree.addFile(
            named: Array("sparse".utf8), in: tree.root, status: status(3, apparent: 10, allocated: bigAllocated))
        let small = tree.addFile(
            named: Array("small".utf8), in: tree.root, status: status(4, apparent: 100, allocated: 4096))
        #expect(tree.usage(of: image) == Usage(allocated: 4096, apparent: bigApparent))
        #expect(tree.usage(of: sparse) == Usage(allocated: bigAllocated, apparent: 10))
        #expect(tree.wideSizes.count == 2)
        #expect(
            tree.tally(of: tree.root).usage
                == Usage(allocated: 4096 * 3 + bigAllocated, apparent: 4096 + bigApparent + 110))
        #expect(tree.consistencyViolations().isEmpty)

        // Shrunk under 4 GiB: the record holds it again and the wide entry goes.
        tree.updateFile(image, status: status(2, apparent: 1000, allocated: 4096))
        #expect(tree.usage(of: image) == Usage(allocated: 4096, apparent: 1000))
        #expect(tree.wideSizes.count == 1)
        // Grown past it: wide again.
        tree.updateFile(small, status: status(4, apparent: bigApparent, allocated: bigAllocated))
        #expect(tree.usage(of: small) == Usage(allocated: bigAllocated, apparent: bigApparent))
        #expect(tree.consistencyViolations().isEmpty)

        // A second name makes it linked; both ways the sizes stay exact.
        let link = tree.addFile(
            named: Array("link".utf8), in: tree.root,
            status: status(4, apparent: bigApparent, allocated: bigAllocated, links: 2))
        #expect(tree.usage(of: link) == Usage(allocated: bigAllocated, apparent: bigApparent))
        tree.removeFile(link)
        tree.updateFile(small, status: status(4, apparent: bigApparent, allocated: bigAllocated))
        #expect(tree.usage(of: small) == Usage(allocated: bigAllocated, apparent: bigApparent))

        // Removed, a wide record leaves the table, and its reused record starts narrow.
        tree.removeFile(sparse)
        tree.removeFile(small)
        #expect(tree.wideSizes.isEmpty)
        let reused = tree.addFile(
            named: Array("reused".utf8), in: tree.root, status: status(5, apparent: 1, allocated: 512))
        #expect(tree.usage(of: reused) == Usage(allocated: 512, apparent: 1))
        #expect(tree.tally(of: tree.root).usage == Usage(allocated: 4096 * 2 + 512, apparent: 4096 + 1000 + 1))
        #expect(tree.consistencyViolations().isEmpty)
    }
}
