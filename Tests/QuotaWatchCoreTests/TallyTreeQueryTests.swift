import Foundation
import QuotaWatchCore
import Testing

@Suite("TallyTree queries")
struct TallyTreeQueryTests {
    private static func directory(_ inode: UInt64, allocated: UInt64 = 4096) -> FileStatus {
        FileStatus(
            device: 7, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: allocated)
    }

    private static func file(_ inode: UInt64, allocated: UInt64) -> FileStatus {
        FileStatus(
            device: 7, inode: inode, kind: .regular, linkCount: 1, apparentBytes: allocated, allocatedBytes: allocated)
    }

    /// root/{a/{x,y}, a-b, b}, with "b" the largest; "a-b" sorts after "a"'s children in tree
    /// order although "a-b" < "a/x" as plain bytes.
    private static func sample() -> TallyTree {
        var tree = TallyTree(root: directory(1))
        let a = tree.addDirectory(named: Array("a".utf8), in: tree.root, status: directory(2))
        tree.addDirectory(named: Array("y".utf8), in: a, status: directory(3))
        let x = tree.addDirectory(named: Array("x".utf8), in: a, status: directory(4))
        tree.addDirectory(named: Array("a-b".utf8), in: tree.root, status: directory(5))
        let b = tree.addDirectory(named: Array("b".utf8), in: tree.root, status: directory(6))
        tree.addFile(named: Array("big".utf8), in: b, status: file(10, allocated: 1 << 20))
        tree.addFile(named: Array("f".utf8), in: x, status: file(11, allocated: 8192))
        tree.addFile(named: Array("not-a-dir".utf8), in: tree.root, status: file(12, allocated: 4096))
        return tree
    }

    private static func paths(_ rows: [DirectoryRow]?) -> [String]? {
        rows?.map { $0.report.path }
    }

    @Test("a depth shows that many levels, parents before children, siblings in byte order")
    func depth() {
        let tree = Self.sample()
        #expect(Self.paths(tree.rows(TreeSelection(depth: 0))) == ["."])
        #expect(Self.paths(tree.rows(TreeSelection(depth: 1))) == [".", "a", "a-b", "b"])
        #expect(Self.paths(tree.rows(TreeSelection())) == [".", "a", "a/x", "a/y", "a-b", "b"])
        #expect(tree.report(root: "/r").directories.map(\.path) == [".", "a", "a/x", "a/y", "a-b", "b"])
    }

    @Test("a subtree keeps paths relative to the root; a missing path or a file is nil")
    func subtree() {
        let tree = Self.sample()
        #expect(Self.paths(tree.rows(TreeSelection(subtree: Array("a".utf8)))) == ["a", "a/x", "a/y"])
        #expect(Self.paths(tree.rows(TreeSelection(subtree: Array("a".utf8), depth: 0))) == ["a"])
        #expect(Self.paths(tree.rows(TreeSelection(subtree: Array("a/x".utf8)))) == ["a/x"])
        #expect(tree.rows(TreeSelection(subtree: Array("nope".utf8))) == nil)
        #expect(tree.rows(TreeSelection(subtree: Array("not-a-dir".utf8))) == nil)
        #expect(
            tree.rows(TreeSelection(subtree: Array("a/x".utf8)))?.first?.tally
                == Tally(usage: Usage(allocated: 12288, apparent: 12288), files: 1, dirs: 0))
    }

    @Test("top N is the N largest, in tree order; ties go the same way every time")
    func top() {
        let tree = Self.sample()
        #expect(Self.paths(tree.rows(TreeSelection(top: 2))) == [".", "b"])
        #expect(Self.paths(tree.rows(TreeSelection(top: 3))) == [".", "a", "b"])
        #expect(Self.paths(tree.rows(TreeSelection(subtree: Array("a".utf8), top: 2))) == ["a", "a/x"])
        #expect(Self.paths(tree.rows(TreeSelection(depth: 1, top: 100))) == [".", "a", "a-b", "b"])
    }

    @Test("top N agrees with sorting every directory, on seeded random trees with many ties")
    func topMatchesBruteForce() {
        let seed = UInt64(ProcessInfo.processInfo.environment["QUOTAWATCH_QUERY_SEED"] ?? "") ?? 20_261_130
        var random = SeededRandom(seed: seed)
        var tree = TallyTree(root: Self.directory(1))
        var directories = [tree.root]
        for inode in UInt64(2)..<300 {
            let parent = directories[Int(random.next() % UInt64(directories.count))]
            let name = Array("d\(random.next() % 1000)-\(inode)".utf8)
            if random.next() % 3 == 0 {
                tree.addFile(named: name, in: parent, status: Self.file(inode, allocated: 4096 * (random.next() % 3)))
            } else {
                directories.append(
                    tree.addDirectory(named: name, in: parent, status: Self.directory(inode, allocated: 0)))
            }
        }
        let all = tree.rows(TreeSelection())!
        let bySize = all.sorted { lhs, rhs in
            if lhs.tally.allocated != rhs.tally.allocated { return lhs.tally.allocated > rhs.tally.allocated }
            if lhs.tally.apparent != rhs.tally.apparent { return lhs.tally.apparent > rhs.tally.apparent }
            return DirectoryRow.treeOrder(lhs.path, rhs.path)
        }
        for count in [1, 2, 5, 17, 100, all.count, all.count + 5] {
            let expected = bySize.prefix(count).sorted { DirectoryRow.treeOrder($0.path, $1.path) }
            #expect(
                tree.rows(TreeSelection(top: count)) == expected, "seed \(seed) (QUOTAWATCH_QUERY_SEED), top \(count)")
        }
    }

    @Test("paths are read as reports write them; absolute paths, '..' and bad escapes are refused")
    func parsing() throws {
        #expect(try TreeSelection.subtree(fromEscaped: ".").get() == [])
        #expect(try TreeSelection.subtree(fromEscaped: "./a//b/").get() == Array("a/b".utf8))
        #expect(
            try TreeSelection.subtree(fromEscaped: #"caf\xff/back\\slash"#).get() == Array("caf".utf8) + [0xFF]
                + Array("/back\\slash".utf8))
        for bad in ["/etc", "a/../b", #"a\q"#] {
            guard case .failure(let error) = TreeSelection.subtree(fromEscaped: bad) else {
                Issue.record("'\(bad)' was accepted")
                continue
            }
            #expect(error.description.contains(bad))
        }
    }
}

/// SplitMix64: a small seeded generator, so a failure can be replayed.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
