import QuotaWatchCore
import Testing

/// The entries a live view lists for one directory: files beside subdirectories, largest first,
/// the top ones of a bounded heap the same as the head of a full sort.
@Suite("TallyTree children: files and directories together")
struct TallyTreeChildrenTests {
    private static func directory(_ inode: UInt64) -> FileStatus {
        FileStatus(device: 7, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
    }

    private static func file(
        _ inode: UInt64, allocated: UInt64, apparent: UInt64? = nil, links: UInt64 = 1
    )
        -> FileStatus
    {
        FileStatus(
            device: 7, inode: inode, kind: .regular, linkCount: links, apparentBytes: apparent ?? allocated,
            allocatedBytes: allocated)
    }

    @Test("a 30 MB file is listed beside the subdirectories, and the rows add up to the directory's total")
    func fileBesideDirectories() throws {
        var tree = TallyTree(root: Self.directory(1))
        let caches = tree.addDirectory(named: Array("Caches".utf8), in: tree.root, status: Self.directory(2))
        tree.addFile(named: Array("feed.db".utf8), in: caches, status: Self.file(3, allocated: 7_000_000))
        let video = tree.addDirectory(named: Array("video".utf8), in: tree.root, status: Self.directory(4))
        tree.addFile(named: Array("clip".utf8), in: video, status: Self.file(5, allocated: 2_000_000))
        tree.addFile(named: Array("export.mov".utf8), in: tree.root, status: Self.file(6, allocated: 30_003_200))
        tree.addFile(named: Array("empty".utf8), in: tree.root, status: Self.file(7, allocated: 0))

        let children = tree.largestChildren(of: tree.root, limit: 10)
        #expect(
            children.map { String(decoding: $0.name, as: UTF8.self) } == ["export.mov", "Caches", "video", "empty"])
        #expect(children.map(\.isDirectory) == [false, true, true, false])
        #expect(
            children[0].tally == Tally(usage: Usage(allocated: 30_003_200, apparent: 30_003_200), files: 1, dirs: 0))
        // The root's own inode is the only part of its total no row shows.
        let rowsTotal = children.reduce(UInt64(0)) { $0 + $1.tally.allocated }
        #expect(rowsTotal + 4096 == tree.tally(of: tree.root).allocated)

        #expect(tree.largestChildren(of: tree.root, limit: 2).map(\.isDirectory) == [false, true])
        #expect(tree.largestChildren(of: tree.root, limit: 10, including: .files).map(\.isDirectory) == [false, false])
        #expect(tree.largestChildren(of: tree.root, limit: 10, including: .directories).count == 2)
        #expect(tree.largestChildren(of: tree.root, limit: 0).isEmpty)
        #expect(tree.largestChildren(of: video, limit: 5).map(\.name) == [Array("clip".utf8)])
    }

    @Test("a hard-linked file shows its inode's sizes under each name")
    func hardLinkedFile() {
        var tree = TallyTree(root: Self.directory(1))
        tree.addFile(named: Array("a".utf8), in: tree.root, status: Self.file(9, allocated: 8192, links: 2))
        tree.addFile(named: Array("b".utf8), in: tree.root, status: Self.file(9, allocated: 8192, links: 2))
        let children = tree.largestChildren(of: tree.root, limit: 5)
        #expect(children.map(\.tally.allocated) == [8192, 8192])
        #expect(children.map(\.name) == [Array("a".utf8), Array("b".utf8)])
    }

    @Test(
        "the bounded heap keeps exactly the head of a full sort, ties by name",
        arguments: [1, 2, 3, 7, 50, 400])
    func headOfFullSort(limit: Int) {
        var random = SplitMix(seed: UInt64(limit) &* 0x9E37_79B9)
        var tree = TallyTree(root: Self.directory(1))
        var inode: UInt64 = 10
        var subdirectories: [DirectoryID] = []
        for index in 0..<300 {
            inode += 1
            // Few distinct sizes, so ties (broken by name) are common.
            let size = UInt64(random.next() % 8) * 4096
            let name = Array("n\(random.next() % 1000)-\(index)".utf8)
            if random.next() % 3 == 0 {
                let child = tree.addDirectory(named: name, in: tree.root, status: Self.directory(inode))
                subdirectories.append(child)
            } else {
                tree.addFile(
                    named: name, in: tree.root, status: Self.file(inode, allocated: size, apparent: random.next() % 3))
            }
        }
        for directory in subdirectories where random.next() % 2 == 0 {
            inode += 1
            tree.addFile(
                named: Array("inner".utf8), in: directory,
                status: Self.file(inode, allocated: UInt64(random.next() % 8) * 4096))
        }
        let everything =
            tree.subdirectories(of: tree.root).map {
                TallyTree.Child(name: Array(tree.name(of: $0)), isDirectory: true, tally: tree.tally(of: $0))
            }
            + tree.files(in: tree.root).map {
                TallyTree.Child(
                    name: Array(tree.name(of: $0)), isDirectory: false,
                    tally: Tally(usage: tree.usage(of: $0), files: 1, dirs: 0))
            }
        let expected = Array(everything.sorted(by: TallyTree.Child.largestFirst).prefix(limit))
        #expect(tree.largestChildren(of: tree.root, limit: limit) == expected)
    }
}

/// A small deterministic generator (SplitMix64), so every run builds the same trees.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
