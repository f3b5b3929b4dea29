import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// `order: lru`: a file read recently survives while older unread ones go.
@Suite("lru eviction in the live daemon")
struct LRUCleanupLiveTests {
    private let root = LiveFixture.root
    private var cache: TreePath { root / "Caches" / "a" }

    @Test("with order: lru a file read since its last write is kept; the oldest unread ones go")
    func recentlyReadSurvives() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-cleanup-state")
        let tree = fixture.tree
        try tree.makeDirectories(cache)
        try tree.makeDirectories(root / "staging")
        for index in 1...5 {
            try tree.writeFile(cache / "f\(index)", byteCount: 20_000)
            try setModified(tree, cache / "f\(index)", secondsSinceEpoch: 1_577_836_800 + index * 86_400)
        }
        try tree.writeFile(root / "config.yaml", contents: Array("cleaners: [{kind: evict, order: lru}]\n".utf8))
        let daemon = try fixture.start(
            // Opens are reported by inotify only (the fanotify backend would need FAN_OPEN on
            // the whole file system): README's Limits.
            options: [
                "--config", tree.absolutePath(root / "config.yaml"), "--quota", "Caches/*=150kB", "--clean",
                "--backend", "inotify",
            ],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        _ = try daemon.syncStatus()
        // f1 is the oldest by mtime; reading it makes it the most recently used.
        let read = try FileHandle(forReadingFrom: URL(fileURLWithPath: tree.absolutePath(cache / "f1")))
        _ = read.readData(ofLength: 10)
        try read.close()
        _ = try daemon.syncStatus()
        try tree.writeFile(root / "staging" / "new", byteCount: 60_000)
        try tree.rename(root / "staging" / "new", to: cache / "new")

        let cleanup = try CleanupLine(try daemon.waitForEvent("cleanup"))
        let removed = cleanup.paths("evict")
        #expect(!removed.isEmpty && !removed.contains("Caches/a/f1"), "\(cleanup.text)")
        #expect(removed.first == "Caches/a/f2", "the oldest unread file goes first: \(cleanup.text)")
        #expect(try tree.exists(cache / "f1"))
        try daemon.waitForEvent("quota_ok", path: "Caches/a")
        try fixture.stopCleanly()
    }
}
