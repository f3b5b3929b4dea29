import Testing

@testable import QuotaWatchCore

/// What the tree holds follows what it contains, however many names have come and gone: the
/// name arena, the record array and both tables. Capacities are read directly, so nothing
/// here depends on the allocator or the machine.
@Suite("TallyTree memory under churn")
struct TallyTreeMemoryTests {
    private static let device: UInt64 = 7

    private func file(_ inode: UInt64) -> FileStatus {
        FileStatus(
            device: Self.device, inode: inode, kind: .regular, linkCount: 1, apparentBytes: 100,
            allocatedBytes: 4096)
    }

    private func downloadName(_ number: Int) -> [UInt8] {
        let hex = String(number, radix: 16)
        return Array(("CFNetworkDownload_" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex + ".tmp").utf8)
    }

    private func expectSmall(_ tree: TallyTree, _ context: String) {
        #expect(tree.names.bytes.capacity <= 64 * 1024, "name arena, \(context)")
        #expect(tree.files.capacity <= 8192, "file records, \(context)")
        #expect(tree.entryIndex.slotCount <= 4096, "name table, \(context)")
        #expect(tree.inodeIndex.slotCount <= 4096, "inode table, \(context)")
    }

    @Test("200 000 unique names made and deleted in one directory leave the tree as small as it began")
    func uniqueNamesInOneDirectory() {
        var tree = TallyTree(
            root: FileStatus(
                device: Self.device, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096
            ))
        // A few files that stay, so the churn is never the whole tree.
        for number in 0..<100 {
            tree.addFile(named: Array("kept\(number)".utf8), in: tree.root, status: file(10 + UInt64(number)))
        }
        var live: [FileID] = []
        for number in 0..<200_000 {
            live.append(tree.addFile(named: downloadName(number), in: tree.root, status: file(1_000 + UInt64(number))))
            // Up to 50 downloads in flight at once, removed oldest first.
            if live.count > 50 { tree.removeFile(live.removeFirst()) }
        }
        for id in live { tree.removeFile(id) }
        #expect(tree.fileCount == 100 && tree.tally(of: tree.root).files == 100)
        expectSmall(tree, "after 200 000 names")
    }

    @Test("a storm of 100 000 files that all go again gives back the arena, records and tables it needed")
    func stormThatGoesAgain() {
        var tree = TallyTree(
            root: FileStatus(
                device: Self.device, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096
            ))
        let sub = tree.addDirectory(
            named: Array("cache".utf8), in: tree.root,
            status: FileStatus(
                device: Self.device, inode: 2, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096
            ))
        var ids: [FileID] = []
        for number in 0..<100_000 {
            ids.append(tree.addFile(named: downloadName(number), in: sub, status: file(1_000 + UInt64(number))))
        }
        #expect(tree.entryIndex.slotCount >= 131_072, "the storm did grow the tables")
        // Half go one by one, oldest first, then the directory with the rest.
        for id in ids.prefix(50_000) { tree.removeFile(id) }
        tree.removeDirectory(sub)
        #expect(tree.fileCount == 0 && tree.tally(of: tree.root).files == 0)
        expectSmall(tree, "after the storm")
        // And the tree still works: a name added now is found, counted and removable.
        let again = tree.addFile(named: downloadName(7), in: tree.root, status: file(99))
        #expect(tree.entry(named: downloadName(7), in: tree.root) == .file(again))
        tree.removeFile(again)
        #expect(tree.tally(of: tree.root).files == 0)
    }

    /// README, Limits: directory records keep their peak (a directory's number is held by
    /// watches and rules, so the array is never renumbered), and freed ones are reused.
    @Test("directory records keep their peak after their directories go, and are reused by new ones")
    func directoryRecordsKeepTheirPeak() {
        func directory(_ inode: UInt64) -> FileStatus {
            FileStatus(
                device: Self.device, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 4096,
                allocatedBytes: 4096)
        }
        var tree = TallyTree(root: directory(1))
        let made = (0..<2_000).map { number in
            tree.addDirectory(named: Array("d\(number)".utf8), in: tree.root, status: directory(10 + UInt64(number)))
        }
        let peak = tree.directories.count
        #expect(peak >= 2_001)
        for id in made { tree.removeDirectory(id) }
        #expect(tree.directoryCount == 1 && tree.tally(of: tree.root).dirs == 0)
        #expect(tree.directories.count == peak, "the records stay")
        for number in 0..<2_000 {
            _ = tree.addDirectory(
                named: Array("e\(number)".utf8), in: tree.root, status: directory(10_000 + UInt64(number)))
        }
        #expect(tree.directories.count == peak, "new directories reuse the freed records")
    }
}
