import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// The commands agree with each other: scan selects as status does, and contradictory
/// deletion options are refused.
@Suite("the commands agree")
struct CommandConsistencyTests {
    /// a/b/c, each with a file, and d with a larger one.
    private func tree() throws -> TempTree {
        let tree = try TempTree(prefix: "qw-consistency")
        try tree.makeDirectories("root/a/b/c")
        try tree.makeDirectory("root/d")
        for (path, size) in [("root/a/f", 1_000), ("root/a/b/f", 2_000), ("root/a/b/c/f", 3_000), ("root/d/f", 90_000)]
        {
            try tree.writeFile(TreePath(path), byteCount: size)
        }
        return tree
    }

    @Test("scan --json honours --depth, and scan --top N shows the N largest, as status does")
    func scanSelectsAsStatus() throws {
        let tree = try tree()
        let cli = try CLIRunner.locate()
        let shallow = try cli.scanJSON(root: tree.absolutePath("root"), options: ["--depth", "1"])
        let paths = try #require(shallow.report, "\(shallow.result)").directories.map(\.path)
        #expect(Set(paths) == [".", "a", "d"], "--json ignored --depth: \(paths)")
        let whole = try cli.scanJSON(root: tree.absolutePath("root"))
        #expect(try #require(whole.report).directories.count == 5, "--json alone is every directory")
        let top = try cli.scanJSON(root: tree.absolutePath("root"), options: ["--top", "2"])
        #expect(try #require(top.report).directories.map(\.path) == [".", "d"], "\(top.result)")
        let table = try cli.run(["scan", tree.absolutePath("root"), "--top", "2"])
        #expect(table.exitStatus == 0 && table.outputText.contains(" d\n") && !table.outputText.contains(" a\n"))
    }

    @Test("clean --yes with --dry-run is a usage error that names both, and nothing is deleted")
    func yesWithDryRun() throws {
        let tree = try tree()
        let result = try CLIRunner.locate().run([
            "clean", tree.absolutePath("root"), "--path", "d/f", "--yes", "--dry-run",
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("--yes") && result.errorText.contains("--dry-run"), "\(result)")
        #expect(try tree.exists("root/d/f"))
    }
}
