import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// A crawl leaves out a subdirectory that is one of its own ancestors (a bind mount of an
/// ancestor below itself), as du does. Which directories are its ancestors must come from the
/// descriptors it opened, not from the parents' listings: a name can be given to another
/// directory between the parent's listing and the open. Seed 14 of the randomized live test
/// with moves during the first crawl: `bulk-6` listed in ROOT, renamed away, a new directory
/// renamed to `bulk-6`, the old one moved into the new one, all before the crawl opened
/// `bulk-6`; the new one was listed with the old one's identity as its own, so the old one
/// below it looked like a cycle and was left out, 85 directories, with no event to bring them
/// back (the move came before the watch).
@Suite("a crawl's names renamed over")
struct CrawlRenamedOverTests {
    @Test("a directory moved into the one that took its name after the listing is crawled")
    func oldDirectoryMovedIntoItsReplacement() throws {
        let temp = try TempTree(prefix: "qw-crawl-renamed-over")
        // Two candidates, since which is opened first is the crawler's business: the one not
        // opened yet when the first of them is watched is replaced. The replacements wait
        // outside the crawled directory `r`, so that the crawl cannot list them by their old names.
        for name in ["p", "q"] {
            try temp.makeDirectories(TreePath("r/\(name)/s/t"))
            try temp.writeFile(TreePath("r/\(name)/s/t/f"), byteCount: 5000)
            try temp.makeDirectories(TreePath("new-\(name)/x"))
        }
        let candidates = [try inode(temp, "r/p"): "p", try inode(temp, "r/q"): "q"]
        let top = temp.absolutePath(.root)
        let (root, rootStatus) = try TreeScanner().openRoot(temp.absoluteBytes(TreePath("r")))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        let replaced = Mutex<String?>(nil)
        // Where the engine adds its watch: `r` has been listed, and p or q is open.
        let (_, report) = TreeScanner(options: CrawlOptions(workers: 1)).crawl(root, into: &tree, at: tree.root) {
            directory in
            guard let opened = try? directory.status(), let name = candidates[opened.inode] else {
                return WatchOutcome.failed
            }
            replaced.withLock { replaced in
                guard replaced == nil else { return }
                let target = name == "p" ? "q" : "p"
                let renames = [
                    ("r/\(target)", "away"), ("new-\(target)", "r/\(target)"), ("away", "r/\(target)/moved"),
                ]
                for (from, to) in renames where rename("\(top)/\(from)", "\(top)/\(to)") != 0 {
                    Issue.record("rename \(from) to \(to): errno \(errno)")
                }
                replaced = target
            }
            return WatchOutcome.failed
        }
        let target = try #require(replaced.withLock { $0 }, "neither p nor q was opened")
        let expected = try TreeScanner().scan(path: temp.absoluteBytes(TreePath("r")))
        #expect(expected.tree.directoryCount == 9)
        #expect(tree.directoryCount == expected.tree.directoryCount, "replaced \(target)")
        #expect(tree.tally(of: tree.root) == expected.tree.tally(of: expected.tree.root), "replaced \(target)")
        let moved = ["\(target)", "moved", "s", "t"].map { ArraySlice(Array($0.utf8)) }
        #expect(tree.directory(atComponents: moved) != nil, "'\(target)/moved/s/t' left out of the crawl")
        #expect(report.listed == expected.tree.directoryCount)
    }

    private func inode(_ temp: TempTree, _ path: String) throws -> UInt64 {
        try temp.withDirectory(TreePath(path)) { descriptor in try FileDescriptor(rawValue: descriptor).status() }.inode
    }
}
