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

    /// Each backend reports the opens of the files in the directories lru cleans: inotify with
    /// `IN_OPEN` on their watches, fanotify with an inode mark of each (`FAN_OPEN`), so a file
    /// read a moment ago with an old mtime and atime (relatime) is never the first to go.
    @Test("inotify: with order: lru a file read since its last write is kept; the oldest unread ones go")
    func recentlyReadSurvives() throws { try recentlyReadSurvives(backend: "inotify") }

    @Test(
        "fanotify: with order: lru a file read since its last write is kept; the oldest unread ones go",
        .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func recentlyReadSurvivesOnFanotify() throws { try recentlyReadSurvives(backend: "fanotify") }

    private func recentlyReadSurvives(backend: String) throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-cleanup-state")
        let tree = fixture.tree
        try tree.makeDirectories(cache)
        try tree.makeDirectories(root / "staging")
        for index in 1...5 {
            try tree.writeFile(cache / "f\(index)", byteCount: 20_000)
            // An old mtime, and an atime an hour ahead, which a read under relatime leaves as
            // it is: only the open the daemon sees can tell that f1 was used.
            var times = [
                timespec(tv_sec: time(nil) + 3_600, tv_nsec: 0),
                timespec(tv_sec: 1_577_836_800 + index * 86_400, tv_nsec: 0),
            ]
            #expect(utimensat(AT_FDCWD, tree.absolutePath(cache / "f\(index)"), &times, AT_SYMLINK_NOFOLLOW) == 0)
        }
        try tree.writeFile(root / "config.yaml", contents: Array("cleaners: [{kind: evict, order: lru}]\n".utf8))
        let daemon = try fixture.start(
            options: [
                "--config", tree.absolutePath(root / "config.yaml"), "--quota", "Caches/*=150kB", "--clean",
                "--backend", backend,
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
