import Glibc
import QuotaWatchTestSupport

/// Sets a file's modification time (and access time) without following a symlink.
func setModified(_ tree: TempTree, _ path: TreePath, secondsSinceEpoch: Int) throws {
    var times = [
        timespec(tv_sec: secondsSinceEpoch, tv_nsec: 0), timespec(tv_sec: secondsSinceEpoch, tv_nsec: 0),
    ]
    guard utimensat(AT_FDCWD, tree.absolutePath(path), &times, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw SystemCallError("utimensat", "\(path)", errno: errno)
    }
}

/// `st_blocks × 512` of a file.
func allocated(_ tree: TempTree, _ path: TreePath) throws -> UInt64 {
    var status = stat()
    guard lstat(tree.absolutePath(path), &status) == 0 else { throw SystemCallError("lstat", "\(path)", errno: errno) }
    return UInt64(status.st_blocks) * 512
}
