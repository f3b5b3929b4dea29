import Glibc
import QuotaWatchTestSupport
import Testing

/// Checks of the test support itself, which need no product.
@Suite("test support")
struct TestSupportTests {
    @Test(
        "report path escaping",
        arguments: [
            ([], "."),
            (Array("a/b".utf8), "a/b"),
            ([0x80], "\\x80"),
            (Array("\\x80".utf8), "\\\\x80"),
            ([0xFF, 0x41], "\\xffA"),
            (Array("café".utf8), "café"),
            (Array("line\nbreak".utf8), "line\nbreak"),
            ([0xC0, 0xAF], "\\xc0\\xaf"),
            ([0xE2, 0x82], "\\xe2\\x82"),
            ([0xE2, 0x82, 0xAC], "€"),
            ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),
            ([0xF4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80"),
            ([0xF0, 0x9F, 0x93, 0x81], "📁"),
            ([0xE2, 0x82, 0x41], "\\xe2\\x82A"),
        ] as [([UInt8], String)]
    )
    func escaping(bytes: [UInt8], expected: String) {
        #expect(ReportPathEscaping.reportPath(relative: bytes) == expected)
    }

    @Test("a temp tree with unreadable directories and a chain past PATH_MAX is removed")
    func tempTreeRemoval() throws {
        var rootPath = ""
        do {
            let tree = try TempTree()
            rootPath = tree.rootPath
            let deepest = try tree.makeDirectoryChain(under: .root, longerThan: 5000)
            try tree.writeFile(deepest.appending([0xFF, 0x0A]), byteCount: 100)
            try tree.makeDirectories("locked/inner")
            try tree.writeFile("locked/inner/file", byteCount: 10)
            try tree.setMode("locked/inner", 0o000)
            try tree.setMode("locked", 0o000)
            #expect(try tree.exists(deepest.appending([0xFF, 0x0A])))
        }
        #expect(access(rootPath, F_OK) != 0)
    }

    @Test("census counts names and directories below each directory")
    func census() throws {
        let tree = try TempTree()
        try tree.makeDirectories("a/b")
        try tree.writeFile("a/b/file", byteCount: 1)
        try tree.makeHardLink("a/link", to: "a/b/file")
        try tree.makeSymlink("top-link", target: "a")
        let census = try TreeCensus.take(of: tree)
        #expect(census.counts[.root] == TreeCensus.Counts(files: 3, dirs: 2))
        #expect(census.counts["a"] == TreeCensus.Counts(files: 2, dirs: 1))
        #expect(census.counts["a/b"] == TreeCensus.Counts(files: 1, dirs: 0))
        #expect(Set(census.directories) == Set([.root, "a", "a/b"]))
    }

    @Test("du oracle counts a hard-linked inode once per directory, in each directory it is under")
    func duOracleHardLinks() throws {
        let tree = try TempTree()
        try tree.makeDirectories("x")
        try tree.makeDirectories("y")
        try tree.writeFile("x/file", byteCount: 8192)
        try tree.makeHardLink("y/link", to: "x/file")
        let du = try DuOracle.measure(tree, directories: [.root, "x", "y"])
        let x = try #require(du.sizes["x"])
        let y = try #require(du.sizes["y"])
        let root = try #require(du.sizes[.root])
        var rootStatus = stat()
        try #require(lstat(tree.rootPath, &rootStatus) == 0)
        #expect(x.apparent == y.apparent)
        // The root holds its own inode, both directories, and the file once.
        #expect(root.apparent == Int64(rootStatus.st_size) + x.apparent + y.apparent - 8192)
    }

    @Test(
        "children can run as nobody",
        .enabled(if: UnprivilegedExecution.isAvailable, "needs root and setpriv")
    )
    func runAsNobody() throws {
        let result = try ProcessRunner.run("id", ["-u"], as: .nobody)
        #expect(result.outputText == "65534\n", "\(result)")
    }
}
