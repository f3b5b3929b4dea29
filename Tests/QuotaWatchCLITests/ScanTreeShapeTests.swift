import Glibc
import QuotaWatchTestSupport
import Testing

/// Every directory's allocated and apparent size must equal du's, and its
/// files and dirs counts must equal find's, for trees built to hit the cases
/// where naive tallies go wrong.
@Suite("scan --json agrees with du on every directory")
struct ScanTreeShapeTests {
    @Test("hard links across siblings, nested directories and the root's edge")
    func hardLinks() throws {
        let tree = try TempTree()
        try tree.makeDirectories("outside")
        try tree.writeFile("outside/original", byteCount: 64 * 1024)
        try tree.writeFile("outside/other", byteCount: 10_000)
        try tree.makeDirectories("scan/a")
        try tree.makeDirectories("scan/b/nested/deeper")
        try tree.makeDirectories("scan/c/x")
        try tree.makeDirectories("scan/c/y")
        try tree.makeDirectories("scan/d")
        try tree.makeDirectories("scan/e/empty")
        try tree.writeFile("scan/a/file1", byteCount: 100_000)
        try tree.writeFile("scan/b/file2", byteCount: 50_000)
        // A sibling directory and two levels down hold links to b/file2.
        try tree.makeHardLink("scan/a/link-to-file2", to: "scan/b/file2")
        try tree.makeHardLink("scan/b/nested/deeper/link-to-file2", to: "scan/b/file2")
        try tree.makeHardLink("scan/b/nested/deeper/second-link", to: "scan/b/file2")
        try tree.makeHardLink("scan/b/nested/link-to-file1", to: "scan/a/file1")
        // Links to files outside the scanned root.
        try tree.makeHardLink("scan/c/x/outside-link", to: "outside/original")
        try tree.makeHardLink("scan/c/y/outside-link", to: "outside/original")
        try tree.makeHardLink("scan/c/outside-other", to: "outside/other")
        // Two names in one directory.
        try tree.writeFile("scan/d/same1", byteCount: 30_000)
        try tree.makeHardLink("scan/d/same2", to: "scan/d/same1")
        // A link to a sparse file and to an empty file.
        try tree.makeSparseFile("scan/e/sparse", size: 3_000_000, dataOffsets: [1_000_000])
        try tree.makeHardLink("scan/a/sparse-link", to: "scan/e/sparse")
        try tree.makeEmptyFile("scan/e/empty-file")
        try tree.makeHardLink("scan/d/empty-link", to: "scan/e/empty-file")

        try expectScanMatchesOracle(tree, root: "scan")
    }

    @Test("sparse, fallocated, empty and odd-sized files; large directories")
    func fileAllocations() throws {
        let tree = try TempTree()
        try tree.makeDirectories("sparse/inner")
        try tree.makeSparseFile("sparse/hole-only", size: 10 * 1024 * 1024)
        try tree.makeSparseFile(
            "sparse/inner/data-at-ends",
            size: 8 * 1024 * 1024,
            dataOffsets: [0, 8 * 1024 * 1024 - 1]
        )
        try tree.makeSparseFile("sparse/inner/middle", size: 5_000_001, dataOffsets: [2_500_000])
        try tree.makeDirectories("fallocated")
        try tree.makeFallocatedFile("fallocated/one-mebibyte", size: 1024 * 1024)
        try tree.makeFallocatedFile("fallocated/odd", size: 4097)
        try tree.makeDirectories("small")
        for size in [0, 1, 511, 512, 4095, 4096, 4097, 65_537] {
            try tree.writeFile(TreePath("small").appending("size-\(size)"), byteCount: size)
        }
        try tree.makeEmptyFile("small/empty")
        try tree.makeDirectories("empty-directory")
        // Enough entries that the directory itself needs more than one block.
        try tree.makeDirectories("crowded")
        for index in 0..<400 {
            try tree.makeEmptyFile(TreePath("crowded").appending("entry-with-a-longish-name-\(index)"))
        }

        try expectScanMatchesOracle(tree)
    }

    @Test("symlinks are counted as themselves and never followed; FIFOs count as files")
    func symlinksAndSpecialFiles() throws {
        let tree = try TempTree()
        try tree.makeDirectories("target/inner")
        try tree.writeFile("target/big", byteCount: 200_000)
        try tree.writeFile("target/inner/more", byteCount: 30_000)
        try tree.makeDirectories("links")
        try tree.makeSymlink("links/to-file", target: "../target/big")
        try tree.makeSymlink("links/to-directory", target: "../target")
        try tree.makeSymlink("links/to-root", target: tree.rootPath)
        try tree.makeSymlink("links/dangling", target: "does/not/exist")
        try tree.makeSymlink("links/self-loop", target: "self-loop")
        // Long enough that ext4 gives the target a block of its own.
        try tree.makeSymlink("links/long-target", target: String(repeating: "t", count: 1000))
        try tree.makeSymlink("links/to-outside", target: "/usr")
        try tree.makeFIFO("links/pipe")

        try expectScanMatchesOracle(tree)
    }

    @Test("names that are not UTF-8, or hold newlines, backslashes and control characters")
    func unusualNames() throws {
        let tree = try TempTree()
        let names: [[UInt8]] = [
            [0x80],
            Array("\\x80".utf8),
            [0xFF, 0xFE],
            Array("line\nbreak".utf8),
            Array("back\\slash".utf8),
            Array("tab\there".utf8),
            Array("quote\"d".utf8),
            [0x01, 0x7F],
            Array("café".utf8),
            Array("📁 folder".utf8),
            [0xC0, 0xAF],
            [0xE2, 0x82],
            [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80],
            Array("ok".utf8) + [0xE2, 0x82] + Array("x\\y".utf8),
        ]
        for (index, name) in names.enumerated() {
            let directory = TreePath.root.appending(name)
            try tree.makeDirectory(directory)
            try tree.writeFile(directory.appending(name), byteCount: 1000 * (index + 1))
            let nested = directory.appending(names[(index + 1) % names.count])
            try tree.makeDirectory(nested)
            try tree.writeFile(nested.appending("file\n\\\u{1}"), byteCount: 5000)
        }

        let (result, report) = try expectScanMatchesOracle(tree)
        // The escaping must reach the JSON text itself, not only the decoded
        // strings: a raw byte 0x80 is written \\x80, a backslash \\\\.
        let escapedByte = bytes(result.standardOutput, contain: Array(#""\\x80""#.utf8))
        let escapedBackslash = bytes(result.standardOutput, contain: Array(#""\\\\x80""#.utf8))
        #expect(escapedByte, "the JSON text lacks \"\\\\x80\"\n\(result)")
        #expect(escapedBackslash, "the JSON text lacks \"\\\\\\\\x80\"\n\(result)")
        if let report {
            #expect(report.directoriesByPath["\\x80"] != nil)
            #expect(report.directoriesByPath["\\\\x80"] != nil)
        }
    }

    @Test("a directory chain deeper than PATH_MAX (4096 bytes)")
    func pathLongerThanPathMax() throws {
        let tree = try TempTree()
        try tree.makeDirectories("top")
        try tree.writeFile("top/shallow", byteCount: 20_000)
        let deepest = try tree.makeDirectoryChain(under: "top", longerThan: 4096 + 600)
        #expect(tree.absoluteBytes(deepest).count > Int(PATH_MAX))
        try tree.writeFile(deepest.appending("deep-file"), byteCount: 70_000)
        try tree.makeHardLink(deepest.appending("link-to-shallow"), to: "top/shallow")
        try tree.makeHardLink("top/link-to-deep", to: deepest.appending("deep-file"))
        if let middle = deepest.parent?.parent?.parent {
            try tree.makeSparseFile(middle.appending("sparse"), size: 1_000_000, dataOffsets: [500_000])
            try tree.makeSymlink(middle.appending("symlink"), target: "..")
        }
        try tree.makeDirectories("sibling")
        try tree.writeFile("sibling/file", byteCount: 12_345)

        try expectScanMatchesOracle(tree)
    }
}
