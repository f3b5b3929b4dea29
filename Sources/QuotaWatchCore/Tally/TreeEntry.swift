/// A directory in a ``TallyTree``. Stable while the directory is in the tree; reused after removal.
public struct DirectoryID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "dir#\(rawValue)" }
}

/// A non-directory name in a ``TallyTree``: a regular file, symlink, socket, fifo or device.
public struct FileID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "file#\(rawValue)" }
}

/// What a name in a directory refers to.
public enum TreeEntry: Hashable, Sendable {
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
