import QuotaWatchTestSupport
import Testing

/// A directory's own size as of its watch. On tmpfs a directory grows 20 B per entry, and
/// `mkdir -p n/deep && echo x > n/deep/f` made between the parent's listing (which stat'ed
/// `deep`) and the watch on `deep` raised no event for `deep`: its size stayed that of the
/// listing, for good.
@Suite("live directory sizes")
struct DirectorySizeLiveTests {
    private let root = LiveFixture.root

    @Test(
        "directories made and filled at once keep their own size exact (tmpfs)",
        .enabled(if: ScratchTmpfs.directory != nil, "\(ScratchTmpfs.unavailableReason)"))
    func madeThenFilled() throws {
        let fixture = try LiveFixture(in: ScratchTmpfs.directory)
        let tree = fixture.tree
        #expect(tree.fileSystemType == TempTree.tmpfsType)
        try fixture.start()
        for round in 0..<120 {
            let top = root / "n\(round)"
            try tree.makeDirectories(top / "deep")
            try tree.writeFile(top / "deep" / "f", contents: Array("x\n".utf8))
            if round % 3 == 0 { try tree.writeFile(top / "g", contents: Array("y\n".utf8)) }
        }
        try fixture.expectLiveMatchesScan("after the burst", du: true)
        try fixture.stopCleanly()
    }
}
