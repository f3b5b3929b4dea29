import Glibc

/// The two sizes of one directory's subtree.
public struct SubtreeSizes: Sendable, Equatable, CustomStringConvertible {
    /// Bytes allocated on disk (st_blocks × 512), as `du -sB1` counts them.
    public var allocated: Int64
    /// Apparent bytes (st_size), as `du -sb` counts them.
    public var apparent: Int64

    public init(allocated: Int64, apparent: Int64) {
        self.allocated = allocated
        self.apparent = apparent
    }

    public var description: String { "allocated \(allocated), apparent \(apparent)" }
}

/// What GNU du says about every directory of a tree: the expected allocated
/// and apparent sizes of a scan.
///
/// du runs once per directory and per kind of size, because a single du
/// counts a hard-linked inode only once across all its arguments. Each du
/// runs from inside the directory's parent (entered with fchdir) and is given
/// the bare name, so no path it sees is longer than one name, however deep the
/// directory lies.
public struct DuOracle: Sendable {
    public let sizes: [TreePath: SubtreeSizes]
    /// What du wrote to stderr, for example about an unreadable directory.
    public let warnings: String

    public init(sizes: [TreePath: SubtreeSizes], warnings: String = "") {
        self.sizes = sizes
        self.warnings = warnings
    }

    /// Measures each of `directories` (relative to `root` of `tree`), running
    /// du as `user` when given.
    public static func measure(
        _ tree: TempTree,
        root: TreePath = .root,
        directories: [TreePath],
        as user: UserIdentity? = nil,
        oneFileSystem: Bool = false
    ) throws -> DuOracle {
        var sizes: [TreePath: SubtreeSizes] = [:]
        var warnings = ""
        for directory in directories {
            let absolute = root.appending(directory)
            let parent = absolute.parent ?? absolute
            let name = absolute.lastComponent ?? [UInt8(ascii: ".")]
            let flags = oneFileSystem ? ["-x"] : []
            let measured = try tree.withDirectory(parent) { descriptor in
                try ["-sB1", "-sb"].map { mode in
                    let result = try ProcessRunner.run(
                        "du",
                        (flags + ["-0", mode, "--"]).map { Array($0.utf8) } + [name],
                        as: user,
                        workingDirectory: descriptor
                    )
                    let records = try parseRecords(result.standardOutput)
                    guard records.count == 1, records[0].path == name,
                        result.exitStatus == 0 || (user != nil && result.exitStatus == 1)
                    else {
                        throw OracleError("du \(mode) of \(directory) failed", result)
                    }
                    warnings += result.errorText
                    return records[0].size
                }
            }
            sizes[directory] = SubtreeSizes(allocated: measured[0], apparent: measured[1])
        }
        return DuOracle(sizes: sizes, warnings: warnings)
    }

    /// Pairs the output of `du -0 -sB1` and `du -0 -sb` runs over the same
    /// directories, given as "." or "./a/b", into an oracle keyed by
    /// relative path.
    public static func combining(allocatedOutput: [UInt8], apparentOutput: [UInt8]) throws -> DuOracle {
        var allocated: [TreePath: Int64] = [:]
        for record in try parseRecords(allocatedOutput) {
            allocated[relativePath(fromDuPath: record.path)] = record.size
        }
        var sizes: [TreePath: SubtreeSizes] = [:]
        for record in try parseRecords(apparentOutput) {
            let path = relativePath(fromDuPath: record.path)
            guard let allocatedSize = allocated[path] else {
                throw OracleError("du -sb listed \(path), du -sB1 did not")
            }
            sizes[path] = SubtreeSizes(allocated: allocatedSize, apparent: record.size)
        }
        return DuOracle(sizes: sizes)
    }

    /// Parses NUL-terminated `size<TAB>path` records; paths stay raw bytes.
    public static func parseRecords(_ output: [UInt8]) throws -> [(size: Int64, path: [UInt8])] {
        try output.split(separator: 0, omittingEmptySubsequences: true).map { record in
            guard let tab = record.firstIndex(of: UInt8(ascii: "\t")),
                let size = Int64(String(decoding: record[record.startIndex..<tab], as: UTF8.self))
            else {
                throw OracleError("unexpected du record: \(ReportPathEscaping.escape(Array(record)))")
            }
            return (size, Array(record[(tab + 1)...]))
        }
    }

    /// "." → the root, "./a/b" or "a/b" → a/b.
    static func relativePath(fromDuPath path: [UInt8]) -> TreePath {
        var trimmed = path[...]
        if trimmed.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) {
            trimmed = trimmed.dropFirst(2)
        }
        if trimmed == [UInt8(ascii: ".")] { return .root }
        return TreePath(components: trimmed.split(separator: UInt8(ascii: "/")).map(Array.init))
    }
}
