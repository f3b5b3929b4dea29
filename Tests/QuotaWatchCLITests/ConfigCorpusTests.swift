import Foundation
import QuotaWatchTestSupport
import Testing

/// Malformed and hostile configs, given to `check-config` and to `run --config`: each must be
/// refused with its documented exit status and a message naming the problem, within a bounded
/// time. The bound is the runner's: every command runs under `timeout -s KILL`, so a hang shows
/// as status 137 instead of a test that never ends; no test measures time.
@Suite("hostile configs")
struct ConfigCorpusTests {
    /// A file in the corpus, made in a fresh tree, with what the command must say about it.
    struct Case: Sendable, CustomTestStringConvertible {
        enum Content: Sendable {
            case bytes([UInt8])
            case fifo
            case directory
            case symlinkLoop
            case sparse(Int)
        }

        var name: String
        var content: Content
        var status: CInt
        /// Every one of these appears in the error message.
        var message: [String]

        var testDescription: String { name }
    }

    private static func text(_ text: String) -> Case.Content { .bytes(Array(text.utf8)) }

    static let cases: [Case] = [
        Case(
            name: "flow lists nested 40 000 deep",
            content: text("quotas: " + String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000)),
            status: 65, message: [":1:", "nested more than 64 deep"]),
        Case(
            name: "flow mappings nested 40 000 deep",
            content: text(
                "quotas: " + String(repeating: "{a: ", count: 40_000) + "1" + String(repeating: "}", count: 40_000)),
            status: 65, message: [":1:", "nested more than 64 deep"]),
        Case(
            name: "block mappings nested 100 deep",
            content: text(
                (0..<100).map { String(repeating: "  ", count: $0) + "k\($0):" }.joined(separator: "\n") + " 1\n"),
            status: 65, message: [":65:", "nested more than 64 deep"]),
        Case(
            name: "100 000 unclosed brackets",
            content: text("quotas: " + String(repeating: "[", count: 100_000)), status: 65,
            message: ["nested more than 64 deep"]),
        Case(
            name: "50 000 protect globs",
            content: text("protect:\n" + (0..<50_000).map { "  - 'p\($0)/*'\n" }.joined()), status: 65,
            message: [":10002:", "more than 10000 items in the list that starts at line 2"]),
        Case(
            name: "20 000 quotas in one flow list",
            content: text(
                "quotas: [" + (0..<20_000).map { "{path: d\($0), limit: 1MB}" }.joined(separator: ", ") + "]"),
            status: 65, message: ["more than 10000 items"]),
        Case(
            name: "a mapping of 20 000 weights",
            content: text(
                "quotas:\n  - path: 'a/*'\n    budget: 1GB\n    weights:\n"
                    + (0..<20_000).map { "      'a/d\($0)': 1\n" }.joined()),
            status: 65, message: ["more than 10000 keys in the mapping that starts at line 5"]),
        Case(
            name: "an alias bomb",
            content: text(
                "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                    + (1..<9).map { level in
                        "l\(level): &l\(level) ["
                            + Array(repeating: level == 1 ? "*a" : "*l\(level - 1)", count: 10)
                            .joined(separator: ", ") + "]\n"
                    }.joined()),
            status: 65, message: ["more than 100000 values in the document"]),
        Case(
            name: "a glob component of 2 000 wildcards",
            content: text("protect: ['" + String(repeating: "*a", count: 1000) + "b']\n"), status: 65,
            message: ["more than 511", "255 bytes"]),
        Case(name: "a FIFO", content: .fifo, status: 66, message: ["a FIFO (named pipe), not a regular file"]),
        Case(name: "a directory", content: .directory, status: 66, message: ["a directory, not a regular file"]),
        Case(name: "a symlink loop", content: .symlinkLoop, status: 66, message: ["symbolic links"]),
        Case(
            name: "100 MB (sparse)", content: .sparse(100_000_000), status: 65,
            message: ["larger than 4 MiB; is it a config?"]),
        Case(
            name: "binary garbage",
            content: .bytes((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }), status: 65,
            message: [".yaml:"]),
        Case(
            name: "bytes that are not UTF-8",
            content: .bytes(Array("quotas:\n  - {path: '".utf8) + [0xff, 0xfe] + Array("', limit: 1MB}\n".utf8)),
            status: 65, message: [".yaml:2:", "0xff"]),
        Case(
            name: "a NUL byte",
            content: .bytes(Array("quotas:\n  - {path: a".utf8) + [0] + Array(", limit: 1MB}\n".utf8)),
            status: 65, message: [".yaml:2:", "0x00"]),
    ]

    /// The corpus file for `test`, made in `tree`; returns its absolute path.
    private func make(_ test: Case, in tree: TempTree) throws -> String {
        let path: TreePath = "config.yaml"
        switch test.content {
        case .bytes(let bytes): try tree.writeFile(path, contents: bytes)
        case .fifo: try tree.makeFIFO(path)
        case .directory: try tree.makeDirectory(path)
        case .symlinkLoop:
            try tree.makeSymlink(path, target: "loop.yaml")
            try tree.makeSymlink("loop.yaml", target: "config.yaml")
        case .sparse(let size): try tree.makeSparseFile(path, size: size)
        }
        return tree.absolutePath(path)
    }

    /// Runs the CLI under `timeout -s KILL`, so that a hang ends as status 137.
    private func run(_ arguments: [String]) throws -> ProcessResult {
        let cli = try CLIRunner.locate()
        return try ProcessRunner.run("timeout", ["-s", "KILL", "60", cli.executablePath] + arguments)
    }

    @Test("check-config refuses each with its exit status and a message naming the problem", arguments: cases)
    func checkConfig(_ test: Case) throws {
        let tree = try TempTree()
        let path = try make(test, in: tree)
        let result = try run(["check-config", path])
        #expect(result.exitStatus == test.status, "\(result)")
        for part in test.message { #expect(result.errorText.contains(part), "'\(part)' in \(result.errorText)") }
        #expect(result.errorText.hasPrefix("quotawatch: error: "), "\(result)")
    }

    @Test("run --config refuses each at start, before any crawl, the same way", arguments: cases)
    func runAtStart(_ test: Case) throws {
        let tree = try TempTree()
        let path = try make(test, in: tree)
        try tree.makeDirectory("root")
        let result = try run([
            "run", tree.absolutePath("root"), "--socket", tree.absolutePath("control.sock"), "--config", path,
        ])
        #expect(result.exitStatus == test.status, "\(result)")
        for part in test.message { #expect(result.errorText.contains(part), "'\(part)' in \(result.errorText)") }
    }

    @Test("a config symlinked to a regular file is followed, as configs linked from /etc are")
    func symlinkToRegularFile() throws {
        let tree = try TempTree()
        try tree.writeFile("real.yaml", contents: Array("quotas:\n  - {path: tmp, limit: 1GB}\n".utf8))
        try tree.makeSymlink("config.yaml", target: "real.yaml")
        let result = try run(["check-config", tree.absolutePath("config.yaml")])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains("tmp"), "\(result)")
    }

    @Test("a config at each limit is still read: 64 levels, 10 000 items")
    func atTheLimits() throws {
        let tree = try TempTree()
        // 63 flow lists inside the top-level mapping make 64 levels: an unknown key, but read.
        try tree.writeFile(
            "deep.yaml",
            contents: Array(("x: " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63)).utf8))
        let deep = try run(["check-config", tree.absolutePath("deep.yaml")])
        #expect(deep.exitStatus == 65 && deep.errorText.contains("unknown key 'x'"), "\(deep)")
        try tree.writeFile(
            "wide.yaml", contents: Array(("protect:\n" + (0..<10_000).map { "  - 'p\($0)/*'\n" }.joined()).utf8))
        let wide = try run(["check-config", tree.absolutePath("wide.yaml")])
        #expect(wide.exitStatus == 0, "\(wide)")
    }
}
