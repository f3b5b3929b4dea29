import Glibc
import QuotaWatchTestSupport
import Testing

/// Renames of files and subtrees within the root, into it and out of it.
@Suite("live tallies follow renames")
struct RenameTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    @Test("files and subtrees renamed within the root, over existing targets too, re-list nothing")
    func withinRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "src" / "sub" / "deeper")
        try tree.writeFile(root / "src" / "f1", byteCount: 10_000)
        try tree.writeFile(root / "src" / "f2", byteCount: 20_000)
        try tree.writeFile(root / "src" / "sub" / "g", byteCount: 30_000)
        try tree.writeFile(root / "src" / "sub" / "deeper" / "h", byteCount: 40_000)
        try tree.makeDirectories(root / "dst" / "empty-dir")
        try tree.makeDirectories(root / "dst" / "nested")
        try tree.writeFile(root / "dst" / "existing-file", byteCount: 99_000)
        try tree.makeDirectories(root / "other")
        try tree.makeDirectories(root / "tree2" / "a" / "b")
        try tree.writeFile(root / "tree2" / "a" / "b" / "file", byteCount: 123_456)
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before renaming")

        try tree.rename(root / "src" / "f1", to: root / "src" / "f1-renamed")
        try tree.rename(root / "src" / "f2", to: root / "dst" / "f2")
        try tree.rename(root / "src" / "sub" / "g", to: root / "dst" / "existing-file")
        try tree.rename(root / "src" / "sub", to: root / "other" / "moved-sub")
        try tree.rename(root / "tree2", to: root / "dst" / "empty-dir")
        // A chain of renames of one file, and two directories swapped through a third name.
        try tree.rename(root / "dst" / "f2", to: root / "other" / "f2a")
        try tree.rename(root / "other" / "f2a", to: root / "src" / "f2b")
        try tree.rename(root / "other", to: root / "swap")
        try tree.rename(root / "src", to: root / "other")
        try tree.rename(root / "swap", to: root / "src")
        let renamed = try fixture.expectLiveMatchesScan("after renaming", du: true)

        try tree.rename(root / "src", to: root / "dst" / "nested" / "src")
        try tree.rename(root / "dst" / "nested" / "src" / "moved-sub" / "deeper", to: root / "deeper-at-top")
        let after = try fixture.expectLiveMatchesScan("after moving subtrees down and up", du: true)
        #expect(renamed.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(renamed.engine)")
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(after.engine)")
        try fixture.stopCleanly()
    }

    @Test("a directory renamed over an empty directory made just before keeps being watched")
    func renameOverFreshDirectory() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for index in 0..<20 {
            try tree.makeDirectories(root / "sources" / "d\(index)")
            try tree.writeFile(root / "sources" / "d\(index)" / "file", byteCount: 1_000)
        }
        try fixture.start()

        // mkdir, then rename over it at once: the daemon may see the new name only after it
        // already leads to the renamed directory.
        for index in 0..<20 {
            try tree.makeDirectory(root / "fresh-\(index)")
            try tree.rename(root / "sources" / "d\(index)", to: root / "fresh-\(index)")
        }
        try fixture.expectLiveMatchesScan("after the renames")
        for index in 0..<20 { try tree.writeFile(root / "fresh-\(index)" / "later", byteCount: 50_000) }
        try fixture.expectLiveMatchesScan("after writing into the renamed directories")
        try fixture.stopCleanly()
    }

    @Test("a subtree moved in from outside the root is listed once")
    func intoRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(outside / "incoming" / "a" / "b" / "c")
        try tree.makeDirectories(outside / "incoming" / "d")
        try tree.writeFile(outside / "incoming" / "top-file", byteCount: 15_000)
        try tree.writeFile(outside / "incoming" / "a" / "b" / "c" / "deep-file", byteCount: 250_000)
        try tree.writeFile(outside / "incoming" / "d" / "other", byteCount: 3_000)
        try tree.makeHardLink(outside / "incoming" / "d" / "link", to: outside / "incoming" / "top-file")
        try tree.makeDirectories(outside / "incoming2" / "x")
        try tree.writeFile(outside / "incoming2" / "x" / "file", byteCount: 33_000)
        try tree.writeFile(outside / "file-in", byteCount: 12_000)
        try tree.makeDirectories(root / "target" / "empty")
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before moving in")

        try tree.rename(outside / "incoming", to: root / "target" / "incoming")
        try tree.rename(outside / "file-in", to: root / "file-in")
        try tree.rename(outside / "incoming2", to: root / "target" / "empty")
        let after = try fixture.expectLiveMatchesScan("after moving in", du: true)
        // incoming, a, b, c, d; incoming2 (now empty) and x. The replaced empty directory goes.
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs + 7, "\(before.engine) → \(after.engine)")
        #expect(after.engine.watches == before.engine.watches + 6, "\(before.engine) → \(after.engine)")
        try fixture.stopCleanly()
    }

    @Test("a subtree moved out of the root is dropped with its watches")
    func outOfRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "leaving" / "a" / "b")
        try tree.makeDirectories(root / "leaving" / "c")
        try tree.writeFile(root / "leaving" / "a" / "b" / "file", byteCount: 80_000)
        try tree.writeFile(root / "leaving" / "c" / "file", byteCount: 8_000)
        try tree.writeFile(root / "leaving-file", byteCount: 18_000)
        try tree.makeDirectories(root / "stay" / "x" / "y")
        try tree.writeFile(root / "stay" / "x" / "y" / "file", byteCount: 6_000)
        try tree.makeHardLink(root / "stay" / "link-to-leaving", to: root / "leaving" / "c" / "file")
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before moving out")

        try tree.rename(root / "leaving", to: outside / "left")
        try tree.rename(root / "leaving-file", to: outside / "left-file")
        let moved = try fixture.expectLiveMatchesScan("after moving out", du: true)
        #expect(moved.engine.watches == before.engine.watches - 4, "\(before.engine) → \(moved.engine)")
        #expect(moved.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(moved.engine)")

        // What happens out there is none of the daemon's business.
        try tree.writeFile(outside / "left" / "a" / "new-file", byteCount: 500_000)
        try tree.appendToFile(outside / "left" / "a" / "b" / "file", byteCount: 100_000)
        try fixture.expectLiveMatchesScan("after writing outside")

        // Out and straight back in under another name, with no sync in between.
        try tree.rename(root / "stay" / "x", to: outside / "x")
        try tree.rename(outside / "x", to: root / "stay" / "x-again")
        try tree.rename(outside / "left", to: root / "back")
        let back = try fixture.expectLiveMatchesScan("after moving back in", du: true)
        #expect(back.engine.rescannedDirs == before.engine.rescannedDirs + 6, "\(before.engine) → \(back.engine)")
        try fixture.stopCleanly()
    }
}
