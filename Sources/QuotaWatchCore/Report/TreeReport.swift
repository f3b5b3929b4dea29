/// One directory's row in `scan --json` and `status --json`.
public struct DirectoryReport: Codable, Sendable, Equatable {
    /// Relative to the root, "." for the root itself, escaped with ``EscapedName``.
    public var path: String
    public var allocated: UInt64
    public var apparent: UInt64
    public var files: UInt64
    public var dirs: UInt64

    public init(path: String, allocated: UInt64, apparent: UInt64, files: UInt64, dirs: UInt64) {
        self.path = path
        self.allocated = allocated
        self.apparent = apparent
        self.files = files
        self.dirs = dirs
    }
}

/// The documented JSON shape of a scan: `{"root": …, "directories": […]}`.
public struct TreeReport: Codable, Sendable, Equatable {
    public var root: String
    public var directories: [DirectoryReport]

    public init(root: String, directories: [DirectoryReport]) {
        self.root = root
        self.directories = directories
    }
}

extension TallyTree {
    /// Every directory down to `maxDepth` (all when nil), parents before children and
    /// siblings in byte order of their names, so the output is stable.
    public func report(root: String, maxDepth: Int? = nil) -> TreeReport {
        var rows: [DirectoryReport] = []
        rows.reserveCapacity(maxDepth == nil ? directoryCount : 64)
        var stack: [(DirectoryID, Int)] = [(self.root, 0)]
        while let (directory, depth) = stack.popLast() {
            let tally = tally(of: directory)
            let path = directory == self.root ? "." : EscapedName.string(relativePath(of: directory))
            rows.append(
                DirectoryReport(
                    path: path, allocated: tally.allocated, apparent: tally.apparent, files: tally.files,
                    dirs: tally.dirs))
            if let maxDepth, depth >= maxDepth { continue }
            let children = subdirectories(of: directory).sorted { name(of: $0).lexicographicallyPrecedes(name(of: $1)) }
            for child in children.reversed() { stack.append((child, depth + 1)) }
        }
        return TreeReport(root: root, directories: rows)
    }
}
