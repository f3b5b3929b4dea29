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

/// Returns once each file's ctime is more than `seconds` in the past: `expire` counts a file's
/// age from the newest of its times, and the ctime, which a test cannot set back, is the one
/// it waits for. Throws after ten seconds more.
func waitUntilUnchanged(_ tree: TempTree, _ paths: [TreePath], forMoreThan seconds: Int) throws {
    let deadline = time(nil) + seconds + 10
    for path in paths {
        while true {
            var status = stat()
            guard lstat(tree.absolutePath(path), &status) == 0 else {
                throw SystemCallError("lstat", "\(path)", errno: errno)
            }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let age = (now.tv_sec - status.st_ctim.tv_sec) * 1_000_000_000 + (now.tv_nsec - status.st_ctim.tv_nsec)
            if age > seconds * 1_000_000_000 { break }
            guard time(nil) < deadline else { throw SystemCallError("ctime", "\(path) did not age", errno: 0) }
            // Time itself is the condition waited for here; nothing else can signal it.
            usleep(UInt32(min(seconds * 1_000_000_000 - age + 1_000_000, 200_000_000) / 1000))
        }
    }
}
