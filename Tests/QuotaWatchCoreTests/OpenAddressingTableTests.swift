import Testing

@testable import QuotaWatchCore

/// The table at any slot count, not only powers of two: what lets a crawl's tables be rebuilt
/// to fit their contents (``TallyTree/fitIndexesToContents()``).
@Suite("OpenAddressingTable")
struct OpenAddressingTableTests {
    /// Hashes that send one value in 32 to the last slot, so probe chains wrap past the end
    /// and removals shift entries back across it.
    private static func hash(_ value: UInt32, seed: UInt64) -> UInt64 {
        var numbers = SeededGenerator(state: seed ^ UInt64(value))
        let spread = numbers.next()
        return value % 32 == 0 ? UInt64.max - (spread >> 40) : spread
    }

    @Test(arguments: [(1_000, 1), (1_000, 2), (4_080, 3), (16, 4), (8_192, 5)] as [(Int, UInt64)])
    func insertsAndRemovalsAtAnySlotCountMatchASet(slotCount: Int, seed: UInt64) {
        var numbers = SeededGenerator(state: seed)
        var table = OpenAddressingTable(slotCount: slotCount)
        var model = Set<UInt32>()
        let hash = { (value: UInt32) in Self.hash(value, seed: seed) }
        for step in 0..<10_000 {
            let value = UInt32(numbers.next() % UInt64(slotCount * 2))
            if model.contains(value) {
                table.remove(value, hash: hash(value), rehash: hash)
                model.remove(value)
            } else if !table.needsGrowth {
                table.insert(value, hash: hash(value))
                model.insert(value)
            }
            guard step % 1_000 == 0 else { continue }
            #expect(table.count == model.count, "seed \(seed), step \(step)")
            for candidate in 0..<UInt32(slotCount * 2) {
                let found = table.find(hash: hash(candidate)) { $0 == candidate }
                #expect(
                    (found != nil) == model.contains(candidate),
                    "seed \(seed), slots \(slotCount), step \(step): value \(candidate)")
                if (found != nil) != model.contains(candidate) { return }
            }
        }
    }

    @Test func aFittedTableHoldsItsEntriesAtThreeQuartersLoad() {
        var table = OpenAddressingTable(slotCount: 65_536)
        for value in 0..<UInt32(27_500) { table.insert(value, hash: Self.hash(value, seed: 9)) }
        #expect(table.isLoose, "42 % full after doubling")
        let fitted = table.rebuilt(slotCount: table.fittedSlotCount) { Self.hash($0, seed: 9) }
        #expect(fitted.slotCount % 16 == 0)
        #expect(fitted.slotCount <= 36_682 && fitted.count * 4 < fitted.slotCount * 3 + 4)
        #expect(!fitted.isLoose && !fitted.needsGrowth)
        for value in stride(from: UInt32(0), to: 27_500, by: 7) {
            #expect(fitted.find(hash: Self.hash(value, seed: 9)) { $0 == value } == value)
        }
    }
}

@Suite("TallyTree tables fitted after a crawl")
struct TallyTreeFittedIndexTests {
    private static let device: UInt64 = 7

    private static func directory(_ inode: UInt64) -> FileStatus {
        FileStatus(
            device: device, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
    }

    private static func file(_ inode: UInt64) -> FileStatus {
        FileStatus(device: device, inode: inode, kind: .regular, linkCount: 1, apparentBytes: 100, allocatedBytes: 4096)
    }

    @Test("a tree whose name table doubled to 42 % keeps it at 75 %, and every name and inode is still found")
    func fittingShrinksLooseTablesAndKeepsEveryEntry() {
        var tree = TallyTree(root: Self.directory(1))
        var files: [(FileID, [UInt8], DirectoryID, UInt64)] = []
        for number in 0..<2_500 {
            let directory = tree.addDirectory(
                named: Array("d\(number)".utf8), in: tree.root, status: Self.directory(10 + UInt64(number)))
            for index in 0..<10 {
                let name = Array("f\(index).dat".utf8)
                let inode = 100_000 + UInt64(number * 10 + index)
                files.append(
                    (tree.addFile(named: name, in: directory, status: Self.file(inode)), name, directory, inode))
            }
        }
        // 27 500 names in 65 536 slots (42 %) and 25 000 inodes in 32 768 (76 %): what doubling left.
        #expect(tree.entryIndex.slotCount == 65_536 && tree.inodeIndex.slotCount == 32_768)
        tree.fitIndexesToContents()
        #expect(tree.entryIndex.slotCount <= 27_500 * 4 / 3 + 16, "name table \(tree.entryIndex.slotCount)")
        #expect(tree.inodeIndex.slotCount == 32_768, "the inode table, 76 % full, is left as it is")
        #expect(tree.consistencyViolations() == [])
        for (id, name, directory, inode) in files {
            #expect(tree.entry(named: name, in: directory) == .file(id))
            #expect(tree.singleNamedFile(device: Self.device, inode: inode) == id)
        }
        // And the tree goes on: adds past 80 % grow the fitted table, removals shift within it.
        for (id, _, _, _) in files.prefix(5_000) { tree.removeFile(id) }
        for number in 0..<10_000 {
            tree.addFile(named: Array("new\(number)".utf8), in: tree.root, status: Self.file(900_000 + UInt64(number)))
        }
        #expect(tree.consistencyViolations() == [])
        #expect(tree.entry(named: Array("new9999".utf8), in: tree.root) != nil)
        #expect(tree.fileCount == 30_000 && tree.tally(of: tree.root).files == 30_000)
    }
}
