/// One directory's row in `scan --json` and `status --json`.
package struct DirectoryReport: Codable, Sendable, Equatable {
    /// Relative to the root, "." for the root itself, escaped with ``EscapedName``.
    package var path: String
    package var allocated: UInt64
    package var apparent: UInt64
    package var files: UInt64
    package var dirs: UInt64

    package init(path: String, allocated: UInt64, apparent: UInt64, files: UInt64, dirs: UInt64) {
        self.path = path
        self.allocated = allocated
        self.apparent = apparent
        self.files = files
        self.dirs = dirs
    }
}

/// The documented JSON shape of a scan: `{"root": …, "directories": […]}`.
package struct TreeReport: Codable, Sendable, Equatable {
    package var root: String
    package var directories: [DirectoryReport]

    package init(root: String, directories: [DirectoryReport]) {
        self.root = root
        self.directories = directories
    }
}
