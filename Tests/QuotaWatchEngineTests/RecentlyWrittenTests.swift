import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

@Suite("files a crawl finds still inside the writeback window")
struct RecentlyWrittenTests {
    /// A crawl reports the files changed within the window, so the engine gives them the late
    /// re-stats an event-written file gets; directories are left out. The window is keyed off
    /// the ctime: a file whose mtime was set back (tar -x, cp -a, rsync -a) is noted too, since
    /// its data may not be written back yet. It was left out while the mtime decided.
    @Test func crawlNotesRecentlyChangedFilesOnly() throws {
        let temp = try TempTree()
        try temp.makeDirectories(TreePath("a/b"))
        try temp.writeFile(TreePath("a/fresh"), byteCount: 10)
        try temp.writeFile(TreePath("a/b/fresh"), byteCount: 10)
        try temp.writeFile(TreePath("a/old"), byteCount: 10)
        let anHourAgo = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes(
            [.modificationDate: anHourAgo], ofItemAtPath: temp.absolutePath(TreePath("a/old")))
        let (root, rootStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        let (_, report) = TreeScanner().crawl(
            root, into: &tree, at: tree.root, notingFilesChangedSince: KernelFileSystem.writebackHorizon())
        let noted = report.recentlyWritten.map {
            String(decoding: tree.relativePath(of: $0.directory) + [0x2F] + $0.name, as: UTF8.self)
        }
        #expect(noted.sorted() == ["a/b/fresh", "a/fresh", "a/old"])
        let old = try root.status(of: Array("a/old".utf8))
        #expect(old.modifiedNanoseconds < KernelFileSystem.writebackHorizon())
        #expect(old.changedNanoseconds >= KernelFileSystem.writebackHorizon(), "setting the mtime moved the ctime on")
        let (again, againStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { again.close() }
        var plainTree = TallyTree(root: againStatus)
        let (_, plain) = TreeScanner().crawl(again, into: &plainTree, at: plainTree.root)
        #expect(plainTree.fileCount == 3)
        #expect(plain.recentlyWritten.isEmpty, "a scan asks for nothing")
    }
}
