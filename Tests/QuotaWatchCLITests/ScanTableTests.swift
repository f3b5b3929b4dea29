import Foundation
import QuotaWatchTestSupport
import Testing

/// The human table is not a stable format, so these tests only read what
/// any sensible table shows: one row per directory, naming it (relative, or
/// with the root's absolute path) and, with --bytes, showing its exact
/// allocated size as a plain number. Lines that show no number are headers.
@Suite("scan table output")
struct ScanTableTests {
    /// Directory sizes that differ enough to have a clear order.
    private static func makeTree() throws -> TempTree {
        let tree = try TempTree()
        try tree.makeDirectories("big/inner")
        try tree.writeFile("big/file", byteCount: 1024 * 1024)
        try tree.writeFile("big/inner/file", byteCount: 300 * 1024)
        try tree.makeDirectories("medium")
        try tree.writeFile("medium/file", byteCount: 200 * 1024)
        try tree.makeDirectories("small")
        try tree.writeFile("small/file", byteCount: 1024)
        try tree.makeDirectories("empty")
        return tree
    }

    @Test("--bytes --depth N lists exactly the directories down to depth N with exact sizes", arguments: [0, 1, 2])
    func depthAndBytes(depth: Int) throws {
        let tree = try Self.makeTree()
        let expectation = try ScanExpectation.measure(tree)
        let result = try CLIRunner.locate().run(["scan", tree.rootPath, "--bytes", "--depth", "\(depth)"])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.errorText.isEmpty, "\(result)")

        let expected = expectation.census.directories.filter { $0.depth <= depth }
        let rows = TableRow.parse(
            result.outputText,
            rootPath: tree.rootPath,
            directories: expectation.census.directories
        )
        #expect(
            rows.map(\.path).sorted { $0.reportPath < $1.reportPath }
                == expected.sorted { $0.reportPath < $1.reportPath },
            "rows name \(rows.map(\.path)), expected \(expected)\n\(result)"
        )
        for row in rows {
            let allocated = expectation.du.sizes[row.path]?.allocated
            #expect(
                allocated.map { row.numbers.contains($0) } == true,
                "row for \(row.path) shows \(row.numbers), du -sB1 says \(allocated.map(String.init) ?? "?")\n\(result)"
            )
        }
    }

    @Test("rows come largest first, so the root comes first")
    func largestFirst() throws {
        let tree = try Self.makeTree()
        let expectation = try ScanExpectation.measure(tree)
        let result = try CLIRunner.locate().run(["scan", tree.rootPath, "--bytes", "--depth", "1"])
        let rows = TableRow.parse(
            result.outputText,
            rootPath: tree.rootPath,
            directories: expectation.census.directories
        )
        let expectedOrder: [TreePath] = [.root, "big", "medium", "small", "empty"]
        #expect(rows.map(\.path) == expectedOrder, "\(result)")
    }

    @Test("--iec shows binary units")
    func iecUnits() throws {
        let tree = try Self.makeTree()
        let result = try CLIRunner.locate().run(["scan", tree.rootPath, "--iec", "--depth", "1"])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains("MiB"), "\(result)")
        #expect(result.outputText.contains("KiB"), "\(result)")
    }
}

/// One row of the scan table that names a known directory.
struct TableRow: CustomStringConvertible {
    let path: TreePath
    /// Every token that is a plain number (commas and a trailing "B" allowed).
    let numbers: [Int64]
    let line: String

    var description: String { line }

    static func parse(_ output: String, rootPath: String, directories: [TreePath]) -> [TableRow] {
        let known = Dictionary(directories.map { ($0.reportPath, $0) }) { first, _ in first }
        return output.split(separator: "\n").compactMap { line in
            let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let paths = tokens.compactMap { known[normalize($0, rootPath: rootPath)] }
            guard paths.count == 1 else { return nil }
            let numbers = tokens.compactMap { token -> Int64? in
                var digits = token.replacingOccurrences(of: ",", with: "")
                if digits.hasSuffix("B") { digits.removeLast() }
                return digits.allSatisfy(\.isNumber) ? Int64(digits) : nil
            }
            // A line naming a directory but showing no number is a header,
            // such as "ROOT: /abs/path".
            guard !numbers.isEmpty else { return nil }
            return TableRow(path: paths[0], numbers: numbers, line: String(line))
        }
    }

    /// The report-path form of a path token: "." for the root, "a/b" below.
    private static func normalize(_ token: String, rootPath: String) -> String {
        var path = token
        if path == rootPath || path == rootPath + "/" || path == "./" { return "." }
        if path.hasPrefix(rootPath + "/") { path.removeFirst(rootPath.count + 1) }
        if path.hasPrefix("./") { path.removeFirst(2) }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
