import Glibc

/// An independent count, taken with GNU find, of what lies below every
/// directory of a tree: the expected `files` and `dirs` of a scan.
public struct TreeCensus: Sendable {
    public struct Counts: Sendable, Equatable, CustomStringConvertible {
        /// Non-directory names in the subtree; each hard-link name counts.
        public var files = 0
        /// Directories below the directory, not counting itself.
        public var dirs = 0

        public init(files: Int = 0, dirs: Int = 0) {
            self.files = files
            self.dirs = dirs
        }

        public var description: String { "files \(files), dirs \(dirs)" }
    }

    /// Every directory, relative to the scanned root (which is `.root`).
    public let directories: [TreePath]
    /// Every non-directory entry, relative to the scanned root.
    public let nonDirectories: [TreePath]
    public let counts: [TreePath: Counts]
    /// What find wrote to stderr (for example about an unreadable directory).
    public let warnings: String

    /// Lists `root` of `tree` with `find . ( -links +0 -o -links 0 ) -printf '%y %P\0'`, run
    /// from inside it (as `user` when given), and counts. `-links` makes find stat every entry,
    /// as du does: in a directory that may be read but not searched (chmod 644) find would
    /// otherwise list names from the directory alone that du cannot count. Both tests, as a
    /// bind mount of a directory removed since shows a directory with no link, which du counts.
    public static func take(
        of tree: TempTree,
        root: TreePath = .root,
        as user: UserIdentity? = nil,
        oneFileSystem: Bool = false
    ) throws -> TreeCensus {
        let arguments =
            ["."] + (oneFileSystem ? ["-xdev"] : []) + [
                "(", "-links", "+0", "-o", "-links", "0", ")", "-printf", "%y %P\\0",
            ]
        let result = try tree.withDirectory(root) { descriptor in
            try ProcessRunner.run("find", arguments, as: user, workingDirectory: descriptor)
        }
        // find exits 1 after a warning such as an unreadable directory, which
        // is expected only when running as an unprivileged user.
        guard result.exitStatus == 0 || (user != nil && result.exitStatus == 1) else {
            throw OracleError("find failed", result)
        }
        return try parse(findOutput: result.standardOutput, warnings: result.errorText)
    }

    /// Counts from the output of `find . -printf '%y %P\0'`: records of a
    /// type letter, a space, and the path relative to the starting point.
    public static func parse(findOutput: [UInt8], warnings: String = "") throws -> TreeCensus {
        var directories: [TreePath] = []
        var nonDirectories: [TreePath] = []
        var counts: [TreePath: Counts] = [:]
        for record in findOutput.split(separator: 0, omittingEmptySubsequences: true) {
            let bytes = Array(record)
            guard bytes.count >= 2, bytes[1] == UInt8(ascii: " ") else {
                throw OracleError("unexpected find record: \(ReportPathEscaping.escape(bytes))")
            }
            let isDirectory = bytes[0] == UInt8(ascii: "d")
            let path = TreePath(
                components: bytes[2...].split(separator: UInt8(ascii: "/")).map(Array.init)
            )
            if isDirectory {
                directories.append(path)
                counts[path, default: Counts()] = counts[path] ?? Counts()
            } else {
                nonDirectories.append(path)
            }
            for ancestorDepth in 0..<path.depth {
                let ancestor = TreePath(components: Array(path.components.prefix(ancestorDepth)))
                if isDirectory {
                    counts[ancestor, default: Counts()].dirs += 1
                } else {
                    counts[ancestor, default: Counts()].files += 1
                }
            }
        }
        return TreeCensus(
            directories: directories,
            nonDirectories: nonDirectories,
            counts: counts,
            warnings: warnings
        )
    }
}

/// A failure of an oracle tool (find, du), with what it printed.
public struct OracleError: Error, CustomStringConvertible {
    public let description: String

    public init(_ message: String, _ result: ProcessResult? = nil) {
        description = result.map { "\(message)\n\($0)" } ?? message
    }
}
