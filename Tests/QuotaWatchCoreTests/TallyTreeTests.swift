import QuotaWatchCore
import Testing

private func fileStatus(inode: UInt64, allocated: UInt64, apparent: UInt64, links: UInt64 = 1) -> FileStatus {
    FileStatus(
        device: 7, inode: inode, kind: .regular, linkCount: links, apparentBytes: apparent, allocatedBytes: allocated)
}

private func directoryStatus(inode: UInt64, allocated: UInt64 = 4096) -> FileStatus {
    FileStatus(device: 7, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: allocated)
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("TallyTree")
struct TallyTreeTests {
    @Test func fileSizesRollUpEveryAncestor() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let b = tree.addDirectory(named: bytes("b"), in: a, status: directoryStatus(inode: 3))
        let file = tree.addFile(
            named: bytes("f"), in: b, status: fileStatus(inode: 10, allocated: 8192, apparent: 5000))

        #expect(
            tree.tally(of: b) == Tally(usage: Usage(allocated: 4096 + 8192, apparent: 4096 + 5000), files: 1, dirs: 0))
        #expect(
            tree.tally(of: a) == Tally(usage: Usage(allocated: 8192 + 8192, apparent: 8192 + 5000), files: 1, dirs: 1))
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 8192)
        #expect(tree.tally(of: tree.root).dirs == 2)

        tree.updateFile(file, status: fileStatus(inode: 10, allocated: 512, apparent: 100))
        #expect(tree.tally(of: tree.root).usage == Usage(allocated: 3 * 4096 + 512, apparent: 3 * 4096 + 100))

        tree.removeFile(file)
        #expect(
            tree.tally(of: tree.root) == Tally(usage: Usage(allocated: 3 * 4096, apparent: 3 * 4096), files: 0, dirs: 2)
        )
        #expect(tree.entry(named: bytes("f"), in: b) == nil)
    }

    @Test func hardLinksInSiblingDirectoriesCountOncePerSubtree() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let b = tree.addDirectory(named: bytes("b"), in: tree.root, status: directoryStatus(inode: 3))
        let linked = fileStatus(inode: 10, allocated: 40960, apparent: 40000, links: 2)
        tree.addFile(named: bytes("x"), in: a, status: linked)
        let second = tree.addFile(named: bytes("y"), in: b, status: linked)

        #expect(tree.tally(of: a).allocated == 4096 + 40960)
        #expect(tree.tally(of: b).allocated == 4096 + 40960)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 40960)
        #expect(tree.tally(of: tree.root).files == 2)

        tree.removeFile(second)
        #expect(tree.tally(of: b).allocated == 4096)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 40960)
    }

    @Test func secondNameForASingleNamedFileIsFoundByInode() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        tree.addFile(named: bytes("x"), in: a, status: fileStatus(inode: 10, allocated: 4096, apparent: 10))
        // `ln a/x a/y`: the new name reports two links; the old one was seen with one.
        tree.addFile(named: bytes("y"), in: a, status: fileStatus(inode: 10, allocated: 4096, apparent: 10, links: 2))
        #expect(tree.tally(of: a).allocated == 4096 + 4096)
        #expect(tree.tally(of: a).files == 2)
    }

    @Test func nestedHardLinksCountOnceInTheCommonAncestor() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let deep = tree.addDirectory(named: bytes("deep"), in: a, status: directoryStatus(inode: 3))
        let linked = fileStatus(inode: 10, allocated: 1024, apparent: 1000, links: 3)
        tree.addFile(named: bytes("1"), in: a, status: linked)
        tree.addFile(named: bytes("2"), in: deep, status: linked)
        tree.addFile(named: bytes("3"), in: deep, status: linked)
        #expect(tree.tally(of: deep).allocated == 4096 + 1024)
        #expect(tree.tally(of: a).allocated == 2 * 4096 + 1024)
        #expect(tree.tally(of: a).files == 3)
    }

    @Test func movingASubtreeWithHardLinksKeepsEveryTotalExact() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let b = tree.addDirectory(named: bytes("b"), in: tree.root, status: directoryStatus(inode: 3))
        let moving = tree.addDirectory(named: bytes("m"), in: a, status: directoryStatus(inode: 4))
        let linked = fileStatus(inode: 10, allocated: 8192, apparent: 8000, links: 2)
        tree.addFile(named: bytes("inside"), in: moving, status: linked)
        tree.addFile(named: bytes("outside"), in: a, status: linked)
        tree.addFile(named: bytes("plain"), in: moving, status: fileStatus(inode: 11, allocated: 512, apparent: 1))

        tree.moveDirectory(moving, to: b, named: bytes("moved"))

        #expect(tree.tally(of: a).allocated == 4096 + 8192)
        #expect(tree.tally(of: a).files == 1)
        #expect(tree.tally(of: b).allocated == 2 * 4096 + 8192 + 512)
        #expect(tree.tally(of: b).dirs == 1)
        #expect(tree.tally(of: tree.root).allocated == 4 * 4096 + 8192 + 512)
        #expect(tree.entry(named: bytes("moved"), in: b) == .directory(moving))
        #expect(tree.entry(named: bytes("m"), in: a) == nil)
        #expect(tree.relativePath(of: moving) == bytes("b/moved"))
    }

    @Test func removingASubtreeFreesEveryRecord() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let inner = tree.addDirectory(named: bytes("inner"), in: a, status: directoryStatus(inode: 3))
        let linked = fileStatus(inode: 10, allocated: 8192, apparent: 8000, links: 2)
        tree.addFile(named: bytes("x"), in: inner, status: linked)
        tree.addFile(named: bytes("y"), in: tree.root, status: linked)
        tree.addFile(named: bytes("z"), in: inner, status: fileStatus(inode: 11, allocated: 512, apparent: 3))

        tree.removeDirectory(a)

        #expect(
            tree.tally(of: tree.root)
                == Tally(usage: Usage(allocated: 4096 + 8192, apparent: 4096 + 8000), files: 1, dirs: 0))
        #expect(tree.directoryCount == 1)
        #expect(tree.fileCount == 1)
        #expect(!tree.contains(a))
        // Freed slots are reused without stale names answering lookups.
        let again = tree.addDirectory(named: bytes("b"), in: tree.root, status: directoryStatus(inode: 5))
        #expect(tree.entry(named: bytes("x"), in: again) == nil)
        #expect(tree.entry(named: bytes("b"), in: tree.root) == .directory(again))
    }

    @Test func namesAreRawBytes() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let odd: [UInt8] = [0x66, 0xff, 0x0a, 0x5c]
        let file = tree.addFile(named: odd, in: tree.root, status: fileStatus(inode: 10, allocated: 512, apparent: 1))
        #expect(tree.entry(named: odd, in: tree.root) == .file(file))
        #expect(tree.entry(named: [0x66, 0xfe, 0x0a, 0x5c], in: tree.root) == nil)
        #expect(Array(tree.name(of: file)) == odd)
    }

    /// A live tree can briefly hold a stale single-named record of an inode beside the real
    /// one; a hard link made then must bring both into the hard-link table, or the inode is
    /// counted twice once the stale record goes.
    @Test func aNewLinkJoinsEverySingleNamedRecordOfItsInode() {
        var tree = TallyTree(root: directoryStatus(inode: 1))
        let a = tree.addDirectory(named: bytes("a"), in: tree.root, status: directoryStatus(inode: 2))
        let b = tree.addDirectory(named: bytes("b"), in: tree.root, status: directoryStatus(inode: 3))
        let stale = tree.addFile(
            named: bytes("stale"), in: a, status: fileStatus(inode: 10, allocated: 8192, apparent: 8000))
        tree.addFile(named: bytes("x"), in: b, status: fileStatus(inode: 10, allocated: 8192, apparent: 8000))
        tree.addFile(named: bytes("y"), in: b, status: fileStatus(inode: 10, allocated: 8192, apparent: 8000, links: 2))
        tree.removeFile(stale)
        #expect(tree.tally(of: b).allocated == 4096 + 8192)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 8192)
        #expect(tree.tally(of: a).allocated == 4096)
    }
}
