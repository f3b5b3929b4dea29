import QuotaWatchTestSupport
import Testing

/// What ROOT names, however it is spelled: the directory it leads to, reported by its
/// canonical absolute path, so that every spelling of one directory gives one report (and,
/// for `run`, one socket and one state directory).
@Suite("scan ROOT spellings")
struct ScanRootSpellingTests {
    @Test("a ROOT given as a symlink is followed and reported as the directory it leads to")
    func symlinkRootIsFollowed() throws {
        let tree = try TempTree()
        try tree.makeDirectories("real/sub")
        try tree.writeFile("real/sub/file", byteCount: 25_000)
        try tree.makeSymlink("link", target: "real")
        let cli = try CLIRunner.locate()
        let (viaLink, linked) = try cli.scanJSON(root: tree.absolutePath("link"))
        let (direct, real) = try cli.scanJSON(root: tree.absolutePath("real"))
        #expect(viaLink.exitStatus == 0 && direct.exitStatus == 0, "\(viaLink)\n\(direct)")
        #expect(linked?.root == tree.absolutePath("real"), "\(viaLink)")
        #expect(linked?.directories == real?.directories, "\(viaLink)\n\(direct)")
        #expect(linked?.directoriesByPath["sub"] != nil)
    }

    @Test("a ROOT with '..' is reported resolved")
    func dotDotIsResolved() throws {
        let tree = try TempTree()
        try tree.makeDirectories("top/inner")
        try tree.writeFile("top/file", byteCount: 3_000)
        let cli = try CLIRunner.locate()
        let result = try tree.withDirectory("top/inner") { inner in
            try ProcessRunner.run(cli.executablePath, ["scan", "..", "--json"], workingDirectory: inner)
        }
        #expect(result.exitStatus == 0, "\(result)")
        let report = try ScanReport.decode(result.standardOutput)
        #expect(report.root == tree.absolutePath("top"), "\(result)")
        let (_, relative) = try cli.scanJSON(root: tree.rootPath + "/top/inner/../inner/..")
        #expect(relative?.root == tree.absolutePath("top"))
    }

    @Test(
        "a ROOT that is there but may not be read is a runtime error (exit 1) naming it, as for du",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (root reads everything)"))
    func unreadableRootExitsOne() throws {
        let tree = try TempTree()
        try tree.setMode(.root, 0o755)
        try tree.makeDirectories("locked/sub")
        try tree.setMode("locked", 0o000)
        let staging = try TempTree(prefix: "quotawatch-binary")
        let cli = try CLIRunner.locate().executable(by: .nobody, stagingIn: staging)
        let locked = tree.absolutePath("locked")
        for command in [["scan", locked], ["run", locked, "--socket", tree.absolutePath("s.sock")]] {
            let result = try cli.run(command, as: .nobody)
            #expect(result.exitStatus == 1, "\(command): \(result)")
            #expect(
                result.errorText.contains(locked) && result.errorText.contains("Permission denied"),
                "\(command): \(result)")
        }
    }
}
