import QuotaWatchCore
import Testing

/// A tree built for a one-shot scan (``TallyTree/Lookup/deferred``) keeps no name or inode
/// table: it must still add up as the indexed tree does for everything a crawl sees, and find
/// every name its report asks for.
@Suite("TallyTree without lookup tables")
struct TallyTreeDeferredLookupTests {
    private static let rootStatus = FileStatus(
        device: 3, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)

    /// What a crawl of one random tree adds, in crawl order: each inode with all its links
    /// already made, some of them names outside the tree.
    private struct CrawlScript {
        enum Step {
            case directory(parent: Int, name: [UInt8], status: FileStatus)
            case file(parent: Int, name: [UInt8], status: FileStatus)
        }
        var steps: [Step] = []

        init(seed: UInt64) {
            var random = SeededGenerator(state: seed)
            var directoryCount = 1
            var nextInode: UInt64 = 2
            // Inodes with several names: their status, and how many names are still to come.
            var linked: [(status: FileStatus, namesLeft: Int)] = []
            for index in 0..<2_000 {
                let parent = Int.random(in: 0..<directoryCount, using: &random)
                // Names that differ only in digits, some not UTF-8, as a cache directory holds.
                let name = Array("entry\(index)".utf8) + (index % 11 == 0 ? [0xfe] : [])
                nextInode += 1
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<2:
                    let status = FileStatus(
                        device: 3, inode: nextInode, kind: .directory, linkCount: 2, apparentBytes: 4096,
                        allocatedBytes: 4096 * UInt64.random(in: 1...3, using: &random))
                    steps.append(.directory(parent: parent, name: name, status: status))
                    directoryCount += 1
                case 2 where !linked.isEmpty:
                    let pick = Int.random(in: 0..<linked.count, using: &random)
                    steps.append(.file(parent: parent, name: name, status: linked[pick].status))
                    linked[pick].namesLeft -= 1
                    if linked[pick].namesLeft == 0 { linked.remove(at: pick) }
                default:
                    let blocks = UInt64.random(in: 0...40, using: &random)
                    let names = Int.random(in: 0..<6, using: &random) == 0 ? Int.random(in: 2...4, using: &random) : 1
                    let outside = UInt64.random(in: 0...1, using: &random)
                    let status = FileStatus(
                        device: 3, inode: nextInode, kind: .regular, linkCount: UInt64(names) + outside,
                        apparentBytes: UInt64.random(in: 0...(blocks * 512 + 300), using: &random),
                        allocatedBytes: blocks * 512)
                    steps.append(.file(parent: parent, name: name, status: status))
                    if names > 1 { linked.append((status, names - 1)) }
                }
            }
        }

        func build(_ lookup: TallyTree.Lookup) -> (tree: TallyTree, directories: [DirectoryID]) {
            var tree = TallyTree(root: TallyTreeDeferredLookupTests.rootStatus, lookup: lookup)
            var directories = [tree.root]
            for step in steps {
                switch step {
                case .directory(let parent, let name, let status):
                    directories.append(tree.addDirectory(named: name, in: directories[parent], status: status))
                case .file(let parent, let name, let status):
                    tree.addFile(named: name, in: directories[parent], status: status)
                }
            }
            return (tree, directories)
        }
    }

    @Test("adds up as the indexed tree does, and finds every name", arguments: [1, 7, 99, 2026] as [UInt64])
    func sameTotalsAndLookups(seed: UInt64) {
        let script = CrawlScript(seed: seed)
        let (indexed, indexedDirectories) = script.build(.indexed)
        let (deferred, deferredDirectories) = script.build(.deferred)
        #expect(deferred.consistencyViolations() == [], "seed \(seed)")
        #expect(deferred.fileCount == indexed.fileCount, "seed \(seed)")
        for (position, directory) in deferredDirectories.enumerated() {
            #expect(
                deferred.tally(of: directory) == indexed.tally(of: indexedDirectories[position]),
                "seed \(seed), directory \(position)")
        }
        for case .file(let parent, let name, _) in script.steps {
            guard case .file(let found)? = deferred.entry(named: name, in: deferredDirectories[parent]) else {
                Issue.record("seed \(seed): \(name) not found in directory \(parent)")
                continue
            }
            #expect(deferred.name(of: found).elementsEqual(name), "seed \(seed)")
            #expect(deferred.directory(containing: found) == deferredDirectories[parent], "seed \(seed)")
        }
        for case .directory(let parent, let name, _) in script.steps {
            guard case .directory(let found)? = deferred.entry(named: name, in: deferredDirectories[parent]) else {
                Issue.record("seed \(seed): directory \(name) not found in \(parent)")
                continue
            }
            #expect(deferred.parent(of: found) == deferredDirectories[parent], "seed \(seed)")
        }
        #expect(deferred.entry(named: Array("entry".utf8), in: deferred.root) == nil)
        #expect(deferred.entry(named: Array("entry1".utf8) + [0], in: deferred.root) == nil)
    }

    /// A second name made while the crawl ran: the first name was stat'ed with one link. du
    /// remembers only inodes that had several links when it met them, so it counts this inode
    /// twice, and so does a scan; the indexed tree, which must follow the link as it happens,
    /// counts it once.
    @Test("a link made mid-crawl is counted as du counts it")
    func linkMadeMidCrawl() {
        func build(_ lookup: TallyTree.Lookup) -> TallyTree {
            var tree = TallyTree(root: Self.rootStatus, lookup: lookup)
            let single = FileStatus(
                device: 3, inode: 50, kind: .regular, linkCount: 1, apparentBytes: 1_000, allocatedBytes: 4096)
            var linked = single
            linked.linkCount = 2
            tree.addFile(named: Array("first".utf8), in: tree.root, status: single)
            tree.addFile(named: Array("second".utf8), in: tree.root, status: linked)
            return tree
        }
        let deferred = build(.deferred)
        let indexed = build(.indexed)
        #expect(deferred.tally(of: deferred.root).usage.allocated == 4096 + 2 * 4096)
        #expect(indexed.tally(of: indexed.root).usage.allocated == 4096 + 4096)
    }
}
