import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

@Suite("files a crawl finds still inside the writeback window")
struct RecentlyWrittenTests {
    /// A crawl reports the files written within the window, so the engine gives them the late
    /// re-stats an event-written file gets; older files and directories are left out.
    @Test func crawlNotesRecentlyWrittenFilesOnly() throws {
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
            root, into: &tree, at: tree.root, notingFilesModifiedSince: KernelFileSystem.writebackHorizon())
        let noted = report.recentlyWritten.map {
            String(decoding: tree.relativePath(of: $0.directory) + [0x2F] + $0.name, as: UTF8.self)
        }
        #expect(noted.sorted() == ["a/b/fresh", "a/fresh"])
        let (again, againStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { again.close() }
        var plainTree = TallyTree(root: againStatus)
        let (_, plain) = TreeScanner().crawl(again, into: &plainTree, at: plainTree.root)
        #expect(plainTree.fileCount == 3)
        #expect(plain.recentlyWritten.isEmpty, "a scan asks for nothing")
    }
}
