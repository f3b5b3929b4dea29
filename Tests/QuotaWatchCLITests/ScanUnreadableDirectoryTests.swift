import QuotaWatchTestSupport
import Testing

@Suite("scan of a tree with unreadable directories")
struct ScanUnreadableDirectoryTests {
    @Test(
        "warns about each unreadable directory, goes on, exits 1, and counts as du does",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (root reads everything)"
        )
    )
    func unreadableDirectories() throws {
        let tree = try TempTree()
        try tree.setMode(.root, 0o755)
        try tree.makeDirectories("readable/nested")
        try tree.writeFile("readable/file", byteCount: 10_000)
        try tree.writeFile("readable/nested/file", byteCount: 3_000)
        try tree.makeDirectories("locked-top/sub")
        try tree.writeFile("locked-top/inside", byteCount: 50_000)
        try tree.writeFile("locked-top/sub/deeper", byteCount: 20_000)
        try tree.makeHardLink("readable/link-into-locked", to: "locked-top/inside")
        try tree.makeDirectories("readable/locked-nested")
        try tree.writeFile("readable/locked-nested/hidden", byteCount: 40_000)
        try tree.setMode("locked-top", 0o000)
        try tree.setMode("readable/locked-nested", 0o000)

        let staging = try TempTree(prefix: "quotawatch-binary")
        let cli = try CLIRunner.locate().executable(by: .nobody, stagingIn: staging)
        let (result, _) = try expectScanMatchesOracle(tree, as: .nobody, using: cli, expectedExitStatus: 1)
        for name in ["locked-top", "locked-nested"] {
            let named = bytes(result.standardError, contain: Array(name.utf8))
            #expect(named, "no warning names \(name)\n\(result)")
        }
    }
}
