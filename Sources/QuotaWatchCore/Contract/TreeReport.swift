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
