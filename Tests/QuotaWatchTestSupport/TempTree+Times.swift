import Foundation
import Glibc

extension TempTree {
    /// Sets the access and modification times of `path` (not following a symlink there) to
    /// `seconds` since the epoch, as `touch -h -d @seconds` does: what tar -x, cp -a and rsync
    /// leave. The kernel moves the change time (ctime) to now.
    public func setTimes(_ path: TreePath, seconds: Int) throws {
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("utimensat", "the root has no parent", errno: EINVAL)
        }
        try withDirectory(parent) { descriptor in
            try withCString(name) { (cName) throws(SystemCallError) in
                var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
                _ = try retryingOnInterrupt("utimensat", "\(path) to @\(seconds)") {
                    utimensat(descriptor, cName, &times, AT_SYMLINK_NOFOLLOW)
                }
            }
        }
    }

    /// `st_blocks × 512` of `path`, not following a symlink.
    public func allocatedBytes(_ path: TreePath) throws -> Int {
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("fstatat", "the root has no parent", errno: EINVAL)
        }
        return try withDirectory(parent) { descriptor in
            try withCString(name) { (cName) throws(SystemCallError) in
                var status = stat()
                _ = try retryingOnInterrupt("fstatat", "\(path)") {
                    fstatat(descriptor, cName, &status, AT_SYMLINK_NOFOLLOW)
                }
                return Int(status.st_blocks) * 512
            }
        }
    }

    /// The file system type of the tree (statfs's f_type, as `stat -f` prints it): `0xEF53`
    /// for ext2/3/4, `0x01021994` for tmpfs; 0 if it cannot be told. Swift's Glibc module has
    /// no statfs.
    public var fileSystemType: Int { Self.fileSystemType(of: rootPath) }

    static func fileSystemType(of path: String) -> Int {
        guard let result = try? ProcessRunner.run("stat", ["-f", "-c", "%t", path]), result.exitStatus == 0 else {
            return 0
        }
        return Int(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) ?? 0
    }

    public static let ext4Type = 0xEF53
    public static let tmpfsType = 0x0102_1994
}

/// A tmpfs this process may make temp trees in (`/dev/shm` when it is one), or why not.
public enum ScratchTmpfs {
    public static let directory: String? = {
        guard TempTree.fileSystemType(of: "/dev/shm") == TempTree.tmpfsType, access("/dev/shm", W_OK | X_OK) == 0
        else { return nil }
        return "/dev/shm"
    }()

    public static var unavailableReason: String {
        "needs a writable tmpfs at /dev/shm (directories there grow 20 B per entry)"
    }
}

extension TempTree {
    /// The permission bits of `path`, not following a symlink.
    public func mode(_ path: TreePath) throws -> mode_t {
        if path.isRoot {
            var status = stat()
            _ = try retryingOnInterrupt("stat", rootPath) { lstat(rootPath, &status) }
            return status.st_mode & 0o7777
        }
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("fstatat", "the root has no parent", errno: EINVAL)
        }
        return try withDirectory(parent) { descriptor in
            try withCString(name) { (cName) throws(SystemCallError) in
                var status = stat()
                _ = try retryingOnInterrupt("fstatat", "\(path)") {
                    fstatat(descriptor, cName, &status, AT_SYMLINK_NOFOLLOW)
                }
                return status.st_mode & 0o7777
            }
        }
    }
}
