/// A directory in a ``TallyTree``. Stable while the directory is in the tree; reused after removal.
package struct DirectoryID: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    package var description: String { "dir#\(rawValue)" }
}

/// A non-directory name in a ``TallyTree``: a regular file, symlink, socket, fifo or device.
package struct FileID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package var description: String { "file#\(rawValue)" }
}

/// What a name in a directory refers to.
package enum TreeEntry: Hashable, Sendable {
    case file(FileID)
    case directory(DirectoryID)
}

/// "No record": the end of a sibling list, the root's parent.
let noRecord: UInt32 = .max

/// Identity of an inode across the whole machine.
struct InodeKey: Hashable {
    var device: UInt64
    var inode: UInt64
}

/// An inode that may have several names in the tree. Each directory counts it once,
/// while `namesBelow[dir] > 0`, exactly as `du -s dir` does.
struct LinkedInode {
    var usage: Usage
    var namesBelow: [UInt32: UInt32] = [:]
}
