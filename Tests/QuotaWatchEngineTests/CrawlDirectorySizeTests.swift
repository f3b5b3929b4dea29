import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// A directory's own size is taken after its watch is added. The parent's listing stat'ed it
/// earlier: an entry made between that stat and the watch raised no event, and on tmpfs,
/// where a directory grows 20 B per entry, its size stayed that of the listing for good
/// (`mkdir -p n/deep && echo x > n/deep/f` racing the daemon's crawl of `n`).
@Suite("a crawl's directory sizes")
struct CrawlDirectorySizeTests {
    @Test(
        "an entry made just before the watch is in the directory's own size (tmpfs)",
        .enabled(if: ScratchTmpfs.directory != nil, "\(ScratchTmpfs.unavailableReason)"))
    func entryMadeBeforeTheWatch() throws {
        let temp = try TempTree(prefix: "qw-crawl-size", in: ScratchTmpfs.directory)
        try temp.makeDirectories(TreePath("n/deep"))
        try temp.makeDirectories(TreePath("m"))
        let (root, rootStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        // Where the engine adds its watch, a file appears: after the parent's listing.
        let (_, report) = TreeScanner().crawl(root, into: &tree, at: tree.root) { directory in
            let made = openat(directory.rawValue, "late", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            if made >= 0 { close(made) }
            return WatchOutcome.failed
        }
        #expect(report.listed == 4)
        for path in ["", "n", "n/deep", "m"] {
            let components = path.split(separator: "/").map { ArraySlice(Array($0.utf8)) }
            let directory = try #require(tree.directory(atComponents: components))
            let actual = try temp.withDirectory(path.isEmpty ? .root : TreePath(path)) { descriptor in
                try FileDescriptor(rawValue: descriptor).status()
            }
            let own = tree.tally(of: directory).apparent - childrenApparent(tree, directory)
            #expect(
                own == actual.apparentBytes, "'\(path)': the tree has \(own) B, the directory \(actual.apparentBytes) B"
            )
        }
    }

    private func childrenApparent(_ tree: TallyTree, _ directory: DirectoryID) -> UInt64 {
        tree.subdirectories(of: directory).reduce(0) { $0 + tree.tally(of: $1).apparent }
            + tree.files(in: directory).reduce(0) { $0 + tree.usage(of: $1).apparent }
    }
}
