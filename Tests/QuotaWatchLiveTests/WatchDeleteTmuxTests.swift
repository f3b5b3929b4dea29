import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `d` in `watch`, driven in tmux and read off the screen: a file and a directory deleted
/// after the question, each with its intent in the audit log first; a file held open for
/// writing by this test kept, and the footer saying so. In process and attached to a daemon.
@Suite("watch deletes with d in tmux", .serialized)
struct WatchDeleteTmuxTests {
    static let tmuxPath = WatchTmuxTests.tmuxPath

    /// root/{big.bin (6 MB), cache/{a,b,c} (1 MB each), writing.log (2 MB)}, and a state
    /// directory for the audit log.
    private static func sampleTree(_ prefix: String) throws -> TempTree {
        let tree = try TempTree(prefix: prefix)
        try tree.makeDirectories("root/cache")
        try tree.makeDirectories("state")
        try tree.writeFile("root/big.bin", byteCount: 6_000_000)
        for name in ["a", "b", "c"] { try tree.writeFile(TreePath("root/cache/\(name)"), byteCount: 1_000_000) }
        try tree.writeFile("root/writing.log", byteCount: 2_000_000)
        return tree
    }

    /// The intents of the audit log under `state`, by path.
    private static func intents(_ tree: TempTree) throws -> [String: [String: Any]] {
        var found: [String: [String: Any]] = [:]
        let base = URL(fileURLWithPath: tree.absolutePath("state"))
        for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) ?? .init()
        where url.lastPathComponent == "audit.jsonl" {
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    record["record"] as? String == "intent", let path = record["path"] as? String
                else { continue }
                found[path] = record
            }
        }
        return found
    }

    /// Deletes big.bin and cache/ with `d` then `y`, and tries writing.log while this test
    /// holds it open for writing.
    private func deleteThree(_ tmux: Tmux, _ tree: TempTree) throws {
        try tmux.waitFor("the three rows") { screen in
            ["big.bin ", "cache/", "writing.log "].allSatisfy { WatchTmuxTests.row($0, in: screen) != nil }
        }
        let writer = try tree.openForAppending("root/writing.log")
        defer { close(writer) }

        // The file: the question shows its path, size and count; another key acts on nothing.
        tmux.keys("Home")
        try tmux.waitFor("big.bin selected") { WatchTmuxTests.row("big.bin ", in: $0)?.hasPrefix("> ") == true }
        tmux.keys("d")
        // Waited for whole: a capture can fall between the bytes of one drawing.
        try tmux.waitFor("the question about big.bin, with its path, size and count") { screen in
            ["Delete this file?", "./big.bin", "file, 6.0 MB (allocated)", "y: yes"].allSatisfy(screen.contains)
        }
        // Keys are read in order: once n has closed the question, x was handled before it.
        tmux.keys("x")
        tmux.keys("n")
        let closed = try tmux.waitFor("the question closed by n") { !$0.contains("y: yes") }
        #expect(!closed.contains("deleting ./big.bin"), "a key other than y asked to delete:\n\(closed)")
        #expect(try tree.exists("root/big.bin"), "a key other than y deleted")
        tmux.keys("d")
        try tmux.waitFor("the question asked again") { $0.contains("Delete this file?") }
        tmux.keys("y")
        try tmux.waitFor("big.bin deleted") {
            $0.contains("deleted ./big.bin: 1 name(s)") && WatchTmuxTests.row("big.bin ", in: $0) == nil
        }
        #expect(!(try tree.exists("root/big.bin")))
        let afterFile = try Self.intents(tree)
        #expect(afterFile["big.bin"]?["rule"] as? String == "path", "\(afterFile)")
        #expect(afterFile["big.bin"]?["cleaner"] as? String == "clean", "\(afterFile)")

        // The directory, whole.
        tmux.keys("Home")
        try tmux.waitFor("cache/ selected") { WatchTmuxTests.row("cache/", in: $0)?.hasPrefix("> ") == true }
        tmux.keys("d")
        try tmux.waitFor("the question about cache/, with its path, size and count") { screen in
            ["Delete this directory?", "./cache/", "directory, 3 file(s), 3.0 MB", "y: yes"].allSatisfy(screen.contains)
        }
        tmux.keys("y")
        try tmux.waitFor("cache/ deleted") {
            $0.contains("deleted ./cache: 4 name(s)") && WatchTmuxTests.row("cache/", in: $0) == nil
        }
        #expect(!(try tree.exists("root/cache")))
        let afterDirectory = try Self.intents(tree)
        for path in ["cache/a", "cache/b", "cache/c", "cache"] {
            #expect(afterDirectory[path]?["rule"] as? String == "path", "\(path): \(afterDirectory)")
        }

        // The file open for writing: kept, and the footer and the log say why.
        tmux.keys("Home")
        try tmux.waitFor("writing.log selected") {
            WatchTmuxTests.row("writing.log ", in: $0)?.hasPrefix("> ") == true
        }
        tmux.keys("d")
        try tmux.waitFor("the question about writing.log") { $0.contains("./writing.log") && $0.contains("y: yes") }
        tmux.keys("y")
        try tmux.waitFor("writing.log kept, in the footer and in the log") { screen in
            screen.contains("./writing.log: nothing deleted; kept 1: open for writing by pid \(getpid())")
                && screen.contains("kept ./writing.log: open for writing by pid \(getpid())")
        }
        #expect(try tree.exists("root/writing.log"))
        #expect(try Self.intents(tree)["writing.log"] == nil, "an intent for a file kept before its checks")
        tmux.keys("q")
        try tmux.waitFor("the shell prompt") { WatchTmuxTests.lastLine($0).hasPrefix(Tmux.prompt) }
    }

    @Test(
        "80x24 in process: d deletes a file and a directory with audit records, and keeps a file open for writing",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"))
    func inProcess() throws {
        let tree = try Self.sampleTree("qw-watch-tmux-delete")
        let cli = try CLIRunner.locate()
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: 80, rows: 24)
        tmux.type(
            "STATE_DIRECTORY='\(tree.absolutePath("state"))' LANG=C.UTF-8 '\(cli.executablePath)' watch "
                + "'\(tree.absolutePath("root"))' --socket '\(tree.absolutePath("run/watch.sock"))' --clean")
        try deleteThree(tmux, tree)
    }

    @Test(
        "attached to a daemon run with --clean, at 80x24 and at 200x50",
        .enabled(if: tmuxPath != nil, "tmux is not installed: install Debian's tmux (scripts/lib/deps.sh does)"),
        arguments: [(80, 24), (200, 50)])
    func attached(columns: Int, rows: Int) throws {
        let tree = try Self.sampleTree("qw-watch-tmux-delete-attach")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--clean"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(tree.absolutePath("state"))"])
        defer { _ = try? daemon.stop() }
        let tmux = try Tmux(path: Self.tmuxPath!, socket: tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(tree) { tmux.killServer() } }
        tmux.resize(columns: columns, rows: rows)
        tmux.type("LANG=C.UTF-8 '\(cli.executablePath)' watch --socket '\(socket)'")
        try tmux.waitFor("the attached view") { $0.contains("attached: ") }
        try deleteThree(tmux, tree)
    }
}
