import QuotaWatchCore
import Testing

/// A name recorded as a hard link must follow the inode's link count both ways: du remembers
/// only inodes with several links, so the names of an inode down to one link (one directory
/// shown at two places by a bind mount) are each counted again at their common ancestor.
@Suite("TallyTree link counts")
struct TallyTreeLinkCountTests {
    private static let directoryUsage = Usage(allocated: 4096, apparent: 4096)

    /// `R/x/f`, with `R/y` a bind mount of `R/x` (so `R/y/f` is the same inode), and a link
    /// `outside/g` giving the inode two links; the model is du's.
    private func boundTree() -> (tree: TallyTree, model: TreeModel, x: DirectoryID, y: DirectoryID) {
        var model = TreeModel(rootOwn: Self.directoryUsage)
        model.directories.append(.init(parent: 0, name: Array("x".utf8), own: Self.directoryUsage, inode: 2))
        model.directories.append(.init(parent: 0, name: Array("y".utf8), own: Self.directoryUsage, inode: 2))
        model.files.append(.init(directory: 1, name: Array("f".utf8), inode: 10))
        model.files.append(.init(directory: 2, name: Array("f".utf8), inode: 10))
        model.inodeUsage[10] = Usage(allocated: 8192, apparent: 5)
        model.reportedLinks[10] = 2

        var tree = TallyTree(root: directoryStatus(inode: 1))
        let x = tree.addDirectory(named: Array("x".utf8), in: tree.root, status: directoryStatus(inode: 2))
        let y = tree.addDirectory(named: Array("y".utf8), in: tree.root, status: directoryStatus(inode: 2))
        tree.addFile(named: Array("f".utf8), in: x, status: model.status(ofFileInode: 10))
        tree.addFile(named: Array("f".utf8), in: y, status: model.status(ofFileInode: 10))
        return (tree, model, x, y)
    }

    private func directoryStatus(inode: UInt64) -> FileStatus {
        FileStatus(device: 7, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
    }

    private func expectMatches(_ tree: TallyTree, _ model: TreeModel, _ x: DirectoryID, _ y: DirectoryID) {
        #expect(tree.tally(of: tree.root) == model.tally(of: 0))
        #expect(tree.tally(of: x) == model.tally(of: 1))
        #expect(tree.tally(of: y) == model.tally(of: 2))
    }

    @Test func aStatShowingOneLinkCountsEachNameAgain() throws {
        var (tree, model, x, y) = boundTree()
        expectMatches(tree, model, x, y)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 8192)

        // `rm outside/g; echo more >> R/x/f`: the re-stat of x/f shows one link and new sizes.
        model.reportedLinks[10] = 1
        model.inodeUsage[10] = Usage(allocated: 12288, apparent: 10)
        tree.updateFile(try #require(tree.files(in: x).first), status: model.status(ofFileInode: 10))
        expectMatches(tree, model, x, y)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 2 * 12288)
        #expect(tree.singleNamedFile(device: 7, inode: 10) != nil)

        // Each name now changes on its own, and leaves exactly what it added.
        model.files[1].isLive = false
        let other = try #require(tree.files(in: y).first)
        tree.removeFile(other)
        expectMatches(tree, model, x, y)

        // And back: a new link outside the tree, seen at the next stat, counts it once per subtree.
        model.files[1].isLive = true
        model.reportedLinks[10] = 2
        tree.addFile(named: Array("f".utf8), in: y, status: model.status(ofFileInode: 10))
        expectMatches(tree, model, x, y)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 12288)
    }

    @Test func aNewNameShowingOneLinkCountsEveryNameOnItsOwn() {
        var (tree, model, x, y) = boundTree()
        // The link outside went before a third name appeared through the bind mount.
        model.reportedLinks[10] = 1
        model.files.append(.init(directory: 1, name: Array("h".utf8), inode: 10))
        tree.addFile(named: Array("h".utf8), in: x, status: model.status(ofFileInode: 10))
        expectMatches(tree, model, x, y)
        #expect(tree.tally(of: tree.root).files == 3)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 3 * 8192)
    }

    @Test func aSingleNamedFileShowingTwoLinksCountsOncePerSubtree() throws {
        var (tree, model, x, y) = boundTree()
        model.reportedLinks[10] = 1
        tree.updateFile(try #require(tree.files(in: x).first), status: model.status(ofFileInode: 10))
        expectMatches(tree, model, x, y)
        // `ln R/x/f outside/g` again, then a re-stat of the other name.
        model.reportedLinks[10] = 2
        tree.updateFile(try #require(tree.files(in: y).first), status: model.status(ofFileInode: 10))
        expectMatches(tree, model, x, y)
        #expect(tree.tally(of: tree.root).allocated == 3 * 4096 + 8192)
    }
}
