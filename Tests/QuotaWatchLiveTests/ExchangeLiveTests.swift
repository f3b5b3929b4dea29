import QuotaWatchTestSupport
import Testing

/// renameat2(RENAME_EXCHANGE), as `mv --exchange` and atomic deploy steps use it: the kernel
/// reports two rename pairs and no removal. The daemon applied the first pair as a rename
/// over the target, dropping the target's record and watches: what was written into the
/// swapped directory later was never counted.
@Suite("live tallies follow exchange renames")
struct ExchangeLiveTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    @Test(
        "directories, a directory and a file, two files, and with a name outside the root",
        .enabled(if: TempTree.exchangeUnavailableReason == nil, "\(TempTree.exchangeUnavailableReason ?? "")"))
    func exchanges() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "live" / "inner")
        try tree.writeFile(root / "live" / "inner" / "file", byteCount: 12_000)
        try tree.makeDirectories(root / "next" / "deeper" / "deepest")
        try tree.writeFile(root / "next" / "deeper" / "file", byteCount: 20_000)
        try tree.makeDirectories(root / "other")
        try tree.writeFile(root / "other" / "plain", byteCount: 7_000)
        try tree.writeFile(root / "other" / "second", byteCount: 3_000)
        try tree.makeDirectories(outside / "staged" / "sub")
        try tree.writeFile(outside / "staged" / "sub" / "file", byteCount: 9_000)
        try fixture.start()
        try fixture.expectLiveMatchesScan("before")

        try tree.exchange(root / "live", root / "next")
        try tree.writeFile(root / "live" / "deeper" / "deepest" / "later", byteCount: 30_000)
        try tree.writeFile(root / "next" / "inner" / "later", byteCount: 5_000)
        try fixture.expectLiveMatchesScan("two directories swapped, then written into", du: true)

        try tree.exchange(root / "next", root / "other" / "plain")
        try tree.writeFile(root / "other" / "plain" / "inner" / "more", byteCount: 30_000)
        try tree.appendToFile(root / "next", byteCount: 40_000)
        try fixture.expectLiveMatchesScan("a directory and a file swapped", du: true)

        try tree.exchange(root / "next", root / "other" / "second")
        try tree.exchange(root / "other" / "plain", root / "live" / "deeper")
        try fixture.expectLiveMatchesScan("two files, then across levels", du: true)

        try tree.exchange(outside / "staged", root / "live")
        try tree.writeFile(root / "live" / "sub" / "later", byteCount: 30_000)
        try tree.writeFile(outside / "staged" / "unseen", byteCount: 30_000)
        try fixture.expectLiveMatchesScan("swapped with a directory outside the root", du: true)
        try fixture.stopCleanly()
    }
}
