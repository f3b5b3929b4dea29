import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchCleaning

@Suite("clean_delete planned on the runner: the files' numbers when it runs, not when the engine took them")
struct PlannedSelectionTests {
    @Test("each file is statted when planned: a name now on another inode, or a directory, is left out")
    func statsWhenPlanned() throws {
        let tree = try TempTree(prefix: "qw-planned-selection")
        let cache = "Library/Caches/com.example.feed"
        try tree.makeDirectories(TreePath(cache))
        for name in ["kept", "replaced", "becomes-dir"] {
            try tree.writeFile(TreePath("\(cache)/\(name)"), byteCount: 10)
        }
        let root = try FileDescriptor.currentWorkingDirectory.openDirectory(
            Array(tree.rootPath.utf8), followSymlinks: true)
        defer { root.close() }
        // What the engine takes from the tree: names, inodes, no mtime.
        let items = try ["kept", "replaced", "becomes-dir"].map { name in
            let path = Array("\(cache)/\(name)".utf8)
            var item = try #require(CleanItem(path: path, status: root.status(of: path)))
            item.modifiedNanoseconds = .min
            return item
        }
        var selection = CleanSelection()
        selection.categories = [.caches]
        let planned = PlannedSelection(items: items, selection: selection, nowNanoseconds: 0, root: root)
        // Before the runner gets to it: one name is replaced (another inode), one becomes a directory.
        try tree.writeFile(TreePath("\(cache)/new"), byteCount: 10)
        try tree.rename(TreePath("\(cache)/new"), to: TreePath("\(cache)/replaced"))
        try FileManager.default.removeItem(atPath: tree.absolutePath(TreePath("\(cache)/becomes-dir")))
        try tree.makeDirectory(TreePath("\(cache)/becomes-dir"))
        let chosen = planned.chosen
        #expect(chosen.map { String(decoding: $0.path, as: UTF8.self) } == ["\(cache)/kept"])
        let now = try root.status(of: Array("\(cache)/kept".utf8))
        #expect(chosen.first?.modifiedNanoseconds == now.modifiedNanoseconds)
        #expect(planned.chosen == chosen)
    }
}
