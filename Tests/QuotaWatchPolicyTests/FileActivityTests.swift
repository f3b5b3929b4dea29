import QuotaWatchCore
import QuotaWatchPolicy
import Testing

/// Times a program can set (mtime, atime) against the one it cannot (ctime), and times in the
/// future, in the three decisions that read them.
@Suite("file activity: expire, lru and idle ages")
struct FileActivityTests {
    static let second: Int64 = 1_000_000_000
    static let now: Int64 = 1_000_000 * second

    private func file(
        _ name: String, inode: UInt64, modified: Int64, changed: Int64? = nil, accessed: Int64? = nil
    ) -> CleanupCandidate {
        CleanupCandidate(
            path: Array(name.utf8), device: 1, inode: inode, allocatedBytes: 4096, apparentBytes: 10,
            modifiedNanoseconds: modified, changedNanoseconds: changed, accessedNanoseconds: accessed)
    }

    @Test(
        "expire takes the newest of atime, mtime and ctime, as systemd-tmpfiles does; a future time counts for nothing")
    func expire() {
        let old = Self.now - 10 * 86_400 * Self.second
        let candidates = [
            file("untouched", inode: 1, modified: old, changed: old, accessed: old),
            file("read-yesterday", inode: 2, modified: old, changed: old, accessed: Self.now - 86_400 * Self.second),
            file(
                "extracted-a-minute-ago", inode: 3, modified: old, changed: Self.now - 60 * Self.second, accessed: old),
            file("mtime-in-2100", inode: 4, modified: .max, changed: old, accessed: old),
        ]
        let expired = EvictionSelection.olderThan(candidates, age: .seconds(7 * 86_400), nowNanoseconds: Self.now)
        #expect(expired.map { String(decoding: $0.path, as: UTF8.self) } == ["mtime-in-2100", "untouched"])
    }

    @Test("lru orders by the last change or open the daemon saw; atime only breaks a tie; a future mtime is not new")
    func leastRecentlyUsed() {
        let base = Self.now - 3_600 * Self.second
        let candidates = [
            file("opened-late", inode: 1, modified: base, accessed: base),
            file("tie-read-later", inode: 2, modified: base + 1, accessed: base + 50),
            file("tie-read-earlier", inode: 3, modified: base + 1, accessed: base + 20),
            file("future", inode: 4, modified: .max, changed: base - 10, accessed: base),
        ]
        var opened = candidates[0]
        opened.lastOpenNanoseconds = base + 100
        let picks = EvictionSelection.select(
            [opened] + candidates.dropFirst(), used: 4 * 4096, target: 0, order: .leastRecentlyUsed,
            nowNanoseconds: Self.now)
        #expect(
            picks.map { String(decoding: $0.names[0], as: UTF8.self) } == [
                "future", "tie-read-earlier", "tie-read-later", "opened-late",
            ])
    }

    @Test("idle time: the latest past time, or now when every time is in the future")
    func idle() {
        #expect(FileActivity.lastActivity(modified: 0, changed: Self.now - 5, now: Self.now) == Self.now - 5)
        #expect(FileActivity.lastActivity(modified: .max, changed: .max, now: Self.now) == Self.now)
        #expect(FileActivity.isIdle(since: .min, longerThan: .seconds(1), now: Self.now))
        #expect(!FileActivity.isIdle(since: Self.now, longerThan: .zero, now: Self.now))
    }
}
