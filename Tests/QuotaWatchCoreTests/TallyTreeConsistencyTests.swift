import Testing

@testable import QuotaWatchCore

/// The bookkeeping check the daemon runs under QUOTAWATCH_CHECK_TREE=1 must see each kind of
/// damage, or a sweep run with it proves nothing.
@Suite("TallyTree consistency check")
struct TallyTreeConsistencyTests {
    private static func status(inode: UInt64, kind: FileStatus.Kind = .regular, links: UInt64 = 1) -> FileStatus {
        FileStatus(device: 7, inode: inode, kind: kind, linkCount: links, apparentBytes: 100, allocatedBytes: 4096)
    }

    private static func sample() -> (tree: TallyTree, kept: FileID, gone: FileID) {
        var tree = TallyTree(root: status(inode: 1, kind: .directory))
        let directory = tree.addDirectory(
            named: Array("d".utf8), in: tree.root, status: status(inode: 2, kind: .directory))
        let kept = tree.addFile(named: Array("a".utf8), in: directory, status: status(inode: 3))
        tree.addFile(named: Array("b".utf8), in: directory, status: status(inode: 4, links: 2))
        tree.addFile(named: Array("c".utf8), in: tree.root, status: status(inode: 4, links: 2))
        let gone = tree.addFile(named: Array("e".utf8), in: tree.root, status: status(inode: 5))
        return (tree, kept, gone)
    }

    @Test func aTreeBuiltAndShrunkThroughItsAPIIsSound() {
        var (tree, _, gone) = Self.sample()
        #expect(tree.consistencyViolations() == [])
        tree.removeFile(gone)
        #expect(tree.consistencyViolations() == [])
        tree.removeDirectory(tree.subdirectories(of: tree.root)[0])
        #expect(tree.consistencyViolations() == [])
    }

    @Test func aFreedFileLeftInTheInodeIndexIsReported() {
        var (tree, _, gone) = Self.sample()
        let hash = tree.inodeHash(gone.rawValue)
        tree.removeFile(gone)
        tree.inodeIndex.insert(gone.rawValue, hash: hash)
        #expect(tree.consistencyViolations().contains { $0.contains("not in the tree") })
    }

    @Test func aSingleNamedFileMissingFromTheInodeIndexIsReported() {
        var (tree, kept, _) = Self.sample()
        tree.inodeIndex.remove(kept.rawValue, hash: tree.inodeHash(kept.rawValue), rehash: tree.inodeHasher)
        #expect(tree.consistencyViolations().contains { $0.contains("missing from the inode index") })
    }

    @Test func aLinkedFileInTheInodeIndexIsReported() {
        var (tree, kept, _) = Self.sample()
        tree.files[Int(kept.rawValue)].isLinked = true
        #expect(tree.consistencyViolations().contains { $0.contains("which is linked") })
    }

    @Test func anEntryMissingFromTheNameIndexIsReported() {
        var (tree, kept, _) = Self.sample()
        tree.entryIndex.remove(kept.rawValue, hash: tree.entryHash(kept.rawValue), rehash: tree.entryHasher)
        #expect(tree.consistencyViolations().contains { $0.contains("missing from the name index") })
    }

    @Test func aFileCountThatDisagreesWithTheListsIsReported() {
        var (tree, _, _) = Self.sample()
        tree.fileCount += 1
        #expect(tree.consistencyViolations().contains { $0.contains("files are reachable") })
    }

    @Test func aLinkedNameCountThatDisagreesWithTheNamesIsReported() {
        var (tree, _, _) = Self.sample()
        let key = InodeKey(device: 7, inode: 4)
        tree.linkedInodes[key]?.namesBelow[tree.root.rawValue] = 1
        #expect(tree.consistencyViolations().contains { $0.contains("linked inode 4") })
        tree.linkedInodes[key]?.namesBelow[tree.root.rawValue] = 2
        #expect(tree.consistencyViolations() == [])
        tree.directories[Int(tree.root.rawValue)].linkedNames += 1
        #expect(tree.consistencyViolations().contains { $0.contains("linked names below it") })
    }
}
