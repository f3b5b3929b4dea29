import Testing

@testable import QuotaWatchCore

/// Every change of a directory's tally goes through one function, which lists a directory
/// carrying a rule slot as dirty: what a quota layer will watch.
@Suite("Dirty directories with a rule slot")
struct DirtyDirectoryTests {
    @Test(arguments: [1, 7, 99, 2026] as [UInt64])
    func drainReportsExactlyTheChangedDirectoriesWithASlot(seed: UInt64) {
        var session = RandomTreeSession(seed: seed)
        // About one directory in three carries a rule, the root among them.
        session.tree.setRuleSlot(0, of: session.tree.root)
        session.onNewDirectory = { index, tree, directory in
            if index % 3 == 0 { tree.setRuleSlot(UInt32(index), of: directory) }
        }
        var before = tallies(session)
        for step in 0..<600 {
            guard session.step() else { continue }
            let after = tallies(session)
            var expected: [DirectoryID] = []
            for (index, tally) in after where session.tree.ruleSlot(of: session.treeDirectory[index]!) != nil {
                // A directory added in this step starts with its tally; that is no change.
                if let old = before[index], old != tally { expected.append(session.treeDirectory[index]!) }
            }
            let drained = session.tree.drainDirtyDirectories()
            #expect(Set(drained).count == drained.count, "seed \(seed), step \(step): a directory reported twice")
            #expect(drained.sorted() == expected.sorted(), "seed \(seed), step \(step)")
            if drained.sorted() != expected.sorted() { return }
            before = after
        }
    }

    @Test func nothingIsListedWithoutSlots() {
        var session = RandomTreeSession(seed: 5)
        for _ in 0..<300 { _ = session.step() }
        #expect(session.tree.dirtyDirectories.isEmpty)
        #expect(session.tree.drainDirtyDirectories().isEmpty)
    }

    @Test func slotsAreSetReadAndCleared() {
        var tree = TallyTree(
            root: FileStatus(device: 1, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 10, allocatedBytes: 0))
        let child = tree.addDirectory(
            named: Array("a".utf8), in: tree.root,
            status: FileStatus(
                device: 1, inode: 2, kind: .directory, linkCount: 2, apparentBytes: 10, allocatedBytes: 0))
        #expect(tree.ruleSlot(of: child) == nil)
        tree.setRuleSlot(4, of: child)
        #expect(tree.ruleSlot(of: child) == 4)
        let file = FileStatus(device: 1, inode: 3, kind: .regular, linkCount: 1, apparentBytes: 5, allocatedBytes: 512)
        tree.addFile(named: Array("f".utf8), in: child, status: file)
        tree.addFile(
            named: Array("g".utf8), in: child,
            status: FileStatus(
                device: 1, inode: 4, kind: .regular, linkCount: 1, apparentBytes: 5, allocatedBytes: 512))
        #expect(tree.drainDirtyDirectories() == [child])
        #expect(tree.drainDirtyDirectories().isEmpty)
        tree.setRuleSlot(nil, of: child)
        tree.addFile(
            named: Array("h".utf8), in: child,
            status: FileStatus(
                device: 1, inode: 5, kind: .regular, linkCount: 1, apparentBytes: 5, allocatedBytes: 512))
        #expect(tree.drainDirtyDirectories().isEmpty)
    }

    /// Tallies of every live directory, by the model's number.
    private func tallies(_ session: RandomTreeSession) -> [Int: Tally] {
        var result: [Int: Tally] = [:]
        for index in session.liveDirectories() { result[index] = session.tree.tally(of: session.treeDirectory[index]!) }
        return result
    }
}
