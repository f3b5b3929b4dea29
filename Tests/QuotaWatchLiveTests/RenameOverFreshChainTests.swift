import QuotaWatchTestSupport
import Testing

/// The sequence that once left directories unwatched for good: `makedirs` of a fresh chain,
/// then at once a rename of a watched directory over the chain's empty leaf, 300 times back
/// to back. The daemon's crawl of the new chain races the rename, so it may watch the moved
/// directory under the leaf's name before it hears of the rename.
///
/// The race needs the daemon to list `x` between the mkdir of `y` and the rename: close
/// behind, not far behind. A daemon starved of CPU lists everything after the renames and
/// never sees the window, so 150 more pairs follow, each group of 10 started with the daemon
/// caught up by a `status --sync`.
@Suite("live tallies after renames over the leaf of a fresh chain")
struct RenameOverFreshChainTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside
    private let count = 300
    private let pacedCount = 150

    @Test("450 directories renamed over fresh empty leaves keep counting what is written into them")
    func renameOverFreshLeaves() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for index in 1...(count + pacedCount) {
            try tree.makeDirectories(root / "old" / "src\(index)" / "sub")
            try tree.writeFile(root / "old" / "src\(index)" / "file", byteCount: 5_000)
        }
        try tree.writeFile(outside / "linked", byteCount: 70_000)
        let daemon = try fixture.start()

        // Back to back, with nothing in between for the daemon to catch up.
        for index in 1...count {
            let leaf = root / "new" / "n\(index)" / "x" / "y"
            try tree.makeDirectories(leaf)
            try tree.rename(root / "old" / "src\(index)", to: leaf)
        }
        try fixture.expectLiveMatchesScan("after the renames over fresh leaves")
        for index in (count + 1)...(count + pacedCount) {
            if index % 10 == 1 { _ = try daemon.syncStatus() }
            let leaf = root / "new" / "n\(index)" / "x" / "y"
            try tree.makeDirectories(leaf)
            try tree.rename(root / "old" / "src\(index)", to: leaf)
        }
        try fixture.expectLiveMatchesScan("after the paced renames over fresh leaves")

        // Only a directory the daemon still watches sees these names appear.
        for index in 1...(count + pacedCount) {
            let leaf = root / "new" / "n\(index)" / "x" / "y"
            for directory in [leaf, leaf / "sub"] {
                try tree.writeFile(directory / "later", byteCount: 9_000)
                try tree.makeHardLink(directory / "link", to: outside / "linked")
            }
        }
        try fixture.expectLiveMatchesScan("after writing into the renamed directories", du: true)
        try fixture.stopCleanly()
    }
}
