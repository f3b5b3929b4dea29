import Testing

@testable import QuotaWatchCore

/// The per-file cost the README promises is the file record's size: a field added to it, or
/// reordered so padding creeps in, shows here rather than in an RSS measurement later.
@Suite("Record layout")
struct RecordLayoutTests {
    @Test("a file record is 32 bytes, with no padding, and packs into an array at 32")
    func fileRecordIsThirtyTwoBytes() {
        #expect(MemoryLayout<FileRecord>.size == 32)
        #expect(MemoryLayout<FileRecord>.stride == 32)
        #expect(MemoryLayout<FileRecord>.alignment == 8)
    }

    @Test("the directory word keeps 30 bits of directory, the linked flag and the wide flag apart")
    func directoryAndFlagsDoNotOverlap() {
        var record = FileRecord(inode: 0, directory: FileRecord.directoryLimit - 1, nameOffset: 0)
        record.isLinked = true
        record.isWide = true
        #expect(record.directory == FileRecord.directoryLimit - 1)
        #expect(record.isLinked && record.isWide)
        record.directory = noRecord
        #expect(record.directory == noRecord)
        #expect(record.isLinked && record.isWide)
        record.isLinked = false
        #expect(!record.isLinked && record.isWide)
        record.isWide = false
        record.directory = 5
        #expect(record.directory == 5 && !record.isLinked && !record.isWide)
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
