import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Under fanotify, writes to files born outside the root are dropped without resolving
/// their handles (`OutsideBornFiles`); these are the sequences by which such a file can
/// still become one the tree holds, each checked against du after the daemon has seen the
/// link (so only the later write's own event can make the tally exact: fanotify does no
/// re-stat of linked inodes at sync).
@Suite("fanotify: files born outside the root")
struct FanotifyOutsideBornTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    @Test(
        "a file born outside, linked into the root, then written through its outside name",
        .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func bornOutsideThenLinkedIn() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "a")
        try fixture.start(options: ["--backend", "fanotify"])
        try bear(tree, outside / "new", byteCount: 8_000)
        try tree.appendToFile(outside / "new", byteCount: 8_000)
        try fixture.expectLiveMatchesScan("after files born outside", du: true)

        try tree.makeHardLink(root / "a" / "new", to: outside / "new")
        try fixture.expectLiveMatchesScan("after the link into the root", du: true)
        try tree.appendToFile(outside / "new", byteCount: 200_000)
        try fixture.expectLiveMatchesScan("after a write through the outside name", du: true)

        // All in one go, likely one read: born, linked in, written through the outside name.
        try bear(tree, outside / "quick", byteCount: 4_000)
        try tree.makeHardLink(root / "a" / "quick", to: outside / "quick")
        try tree.appendToFile(outside / "quick", byteCount: 100_000)
        try fixture.expectLiveMatchesScan("after born, linked and written at once", du: true)
        try tree.appendToFile(outside / "quick", byteCount: 100_000)
        try fixture.expectLiveMatchesScan("after one more write through the outside name", du: true)
        try fixture.stopCleanly()
    }

    @Test(
        "link counts up and down outside, a name reused after a removal, a rename into the root",
        .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func linkCountsAndReuse() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try fixture.start(options: ["--backend", "fanotify"])
        // Born outside, a second outside name, the first removed, then linked in.
        try bear(tree, outside / "x", byteCount: 4_000)
        try tree.makeHardLink(outside / "y", to: outside / "x")
        try tree.unlinkEntry(outside / "x")
        try fixture.expectLiveMatchesScan("after links up and down outside", du: true)
        try tree.makeHardLink(root / "z", to: outside / "y")
        try fixture.expectLiveMatchesScan("after linking the survivor in", du: true)
        try tree.appendToFile(outside / "y", byteCount: 150_000)
        try fixture.expectLiveMatchesScan("after a write through the surviving outside name", du: true)

        // Removed and born again under the same name: a new inode, linked in, written outside.
        try bear(tree, outside / "again", byteCount: 4_000)
        try fixture.expectLiveMatchesScan("after the first birth", du: true)
        try tree.unlinkEntry(outside / "again")
        try bear(tree, outside / "again", byteCount: 4_000)
        try fixture.expectLiveMatchesScan("after the second birth", du: true)
        try tree.makeHardLink(root / "again", to: outside / "again")
        try fixture.expectLiveMatchesScan("after linking the second in", du: true)
        try tree.appendToFile(outside / "again", byteCount: 120_000)
        try fixture.expectLiveMatchesScan("after a write through the reused name", du: true)

        // Born outside, renamed into the root, linked back out, written through that name.
        try bear(tree, outside / "moving", byteCount: 4_000)
        try fixture.expectLiveMatchesScan("before the rename", du: true)
        try tree.rename(outside / "moving", to: root / "moved")
        try tree.makeHardLink(outside / "back", to: root / "moved")
        try fixture.expectLiveMatchesScan("after the rename in and the link out", du: true)
        try tree.appendToFile(outside / "back", byteCount: 90_000)
        try fixture.expectLiveMatchesScan("after a write through the link out", du: true)
        try fixture.stopCleanly()
    }

    /// A file of the tree linked outside after the start: that name's creation outside is
    /// not a birth (a link-count change came first), so its writes are counted.
    @Test(
        "a file of the root linked outside while watched, then written through that name",
        .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func treeFileLinkedOutside() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try fixture.start(options: ["--backend", "fanotify"])
        try tree.writeFile(root / "t", byteCount: 4_000)
        try fixture.expectLiveMatchesScan("after the file in the root", du: true)
        try tree.makeHardLink(outside / "t", to: root / "t")
        try fixture.expectLiveMatchesScan("after the link outside", du: true)
        try tree.appendToFile(outside / "t", byteCount: 250_000)
        try fixture.expectLiveMatchesScan("after a write through the outside link", du: true)
        try fixture.stopCleanly()
    }

    /// The two sequences a drop made too eager would miss, once every name is past the
    /// writeback window, so that a sync re-stats none of them and only the write's own event
    /// can count it (about 40 s: the window is 35 s; this waits on the clock, not on the
    /// daemon, as `DocumentedLimitTests` does). A file born outside then linked in; a file of
    /// the root linked outside while watched (that name's creation is no birth).
    @Test(
        "past the writeback window, writes through outside names of files the root holds are counted from their events",
        .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func outsideWritesPastTheWritebackWindow() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try fixture.start(options: ["--backend", "fanotify"])
        try bear(tree, outside / "born", byteCount: 4_000)
        try tree.makeHardLink(root / "born", to: outside / "born")
        try tree.writeFile(root / "t", byteCount: 4_000)
        try tree.makeHardLink(outside / "t", to: root / "t")
        try fixture.expectLiveMatchesScan("after the links", du: true)

        try waitPastWritebackWindow(tree, [root / "born", root / "t"])
        try tree.appendToFile(outside / "born", byteCount: 200_000)
        try tree.appendToFile(outside / "t", byteCount: 250_000)
        try fixture.expectLiveMatchesScan("after writes through the outside names", du: true)
        try fixture.stopCleanly()
    }

    /// Until 37 s after the latest status change of `paths`: the daemon's last re-stat of each
    /// is due 35 s after its last event.
    private func waitPastWritebackWindow(_ tree: TempTree, _ paths: [TreePath]) throws {
        var latest = 0
        for path in paths {
            var status = stat()
            try #require(lstat(tree.absolutePath(path), &status) == 0, "stat \(path)")
            latest = max(latest, status.st_ctim.tv_sec)
        }
        let until = Date(timeIntervalSince1970: TimeInterval(latest + 37))
        if until > Date() { Thread.sleep(until: until) }
    }

    /// Makes a new file as most programs do: `open(O_CREAT)`, `write`, `close`, without
    /// the `fchmod` of `TempTree.writeFile`, whose attribute change would end the birth at once.
    private func bear(_ tree: TempTree, _ path: TreePath, byteCount: Int) throws {
        let descriptor = open(tree.absolutePath(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0, "open \(path): errno \(errno)")
        defer { close(descriptor) }
        let bytes = [UInt8](repeating: 0x5a, count: byteCount)
        var written = 0
        while written < byteCount {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, byteCount - written) }
            try #require(count > 0, "write \(path): errno \(errno)")
            written += count
        }
    }
}
