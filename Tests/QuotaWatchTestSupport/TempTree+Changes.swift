import Foundation
import Glibc

/// Changes to existing entries of a ``TempTree``, as a program would make them while a
/// daemon watches: appends, overwrites, truncation, preallocation, renames, removal.
///
/// Like the rest of ``TempTree``, every call acts relative to the descriptor of the entry's
/// parent, so names may be any bytes.
extension TempTree {
    // MARK: Writing

    /// Appends `byteCount` bytes of a nonzero pattern to the existing file `path`.
    public func appendToFile(_ path: TreePath, byteCount: Int) throws {
        try withOpenFile(path, flags: O_WRONLY | O_APPEND) { descriptor in
            try writePattern(descriptor, byteCount: byteCount, subject: path)
        }
    }

    /// Writes `byteCount` bytes of a nonzero pattern at `offset` of the existing file `path`,
    /// growing it when the write ends past its end.
    public func overwriteFile(_ path: TreePath, at offset: Int, byteCount: Int) throws {
        try withOpenFile(path, flags: O_WRONLY) { descriptor in
            let pattern = Self.pattern(byteCount, period: 239)
            var written = 0
            while written < pattern.count {
                let count = try retryingOnInterrupt("pwrite", "\(path)") {
                    pattern.withUnsafeBytes { buffer in
                        pwrite(
                            descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
                    }
                }
                written += count
            }
        }
    }

    /// Sets the size of the existing file `path` with ftruncate: growing leaves a hole,
    /// shrinking frees the blocks past the end.
    public func truncateFile(_ path: TreePath, to size: Int) throws {
        try withOpenFile(path, flags: O_WRONLY) { descriptor in
            try retryingOnInterrupt("ftruncate", "\(path)") { ftruncate(descriptor, off_t(size)) }
        }
    }

    /// Allocates `length` bytes at `offset` of the existing file `path` with posix_fallocate,
    /// which also grows the file when the range ends past its end.
    public func preallocate(_ path: TreePath, offset: Int, length: Int) throws {
        try withOpenFile(path, flags: O_WRONLY) { descriptor in
            try checkingReturnedError("posix_fallocate", "\(path)") {
                posix_fallocate(descriptor, off_t(offset), off_t(length))
            }
        }
    }

    /// Runs util-linux `fallocate` with `options` on `path`, from inside its parent, for what
    /// posix_fallocate cannot do: `-n` (allocate past the end, keeping the size) and
    /// `--punch-hole`.
    public func runFallocate(_ path: TreePath, _ options: [String]) throws {
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("fallocate", "\(path)", errno: EINVAL)
        }
        let result = try withDirectory(parent) { descriptor in
            try ProcessRunner.run(
                "fallocate", options.map { Array($0.utf8) } + [Array("--".utf8), name], workingDirectory: descriptor)
        }
        guard result.exitStatus == 0 else { throw OracleError("fallocate \(options) of \(path) failed", result) }
    }

    /// Opens the existing file `path` for appending and returns the descriptor, which the
    /// caller must close; for a writer that keeps its file open.
    public func openForAppending(_ path: TreePath) throws -> CInt {
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("openat", "\(path)", errno: EINVAL)
        }
        return try withDirectory(parent) { directory in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("openat", "\(path)") {
                    openat(directory, cName, O_WRONLY | O_APPEND | O_CLOEXEC)
                }
            }
        }
    }

    /// Makes empty files with each of `names` in the existing directory `directory`, through
    /// one descriptor of it, as fast as the file system allows.
    public func makeEmptyFiles(in directory: TreePath, names: [[UInt8]]) throws {
        try withDirectory(directory) { parent in
            for name in names {
                let descriptor = try withCString(name) { (cName) throws(SystemCallError) in
                    try retryingOnInterrupt("openat", "\(directory.appending(name))") {
                        openat(parent, cName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                    }
                }
                close(descriptor)
            }
        }
    }

    /// Writes back every dirty page, with sync(2) (Glibc's module does not export syncfs).
    /// On ext4 writeback is when delayed allocation picks blocks, and a file with more extents
    /// than its inode holds then gains an extent-tree block: st_blocks grows by 4 KiB with no
    /// inotify event, up to dirty_expire_centisecs (30 s) after the write.
    public func writeBack() {
        sync()
    }

    /// Writes back the data of the file `path` (fsync), so that its allocation is final.
    public func writeBack(_ path: TreePath) throws {
        try withOpenFile(path, flags: O_RDONLY) { descriptor in
            try retryingOnInterrupt("fsync", "\(path)") { fsync(descriptor) }
        }
    }

    // MARK: Names

    /// Renames `source` to `destination` with renameat, replacing a file there or an empty
    /// directory, as rename(2) does. Both lie in this tree, so on one file system.
    public func rename(_ source: TreePath, to destination: TreePath) throws {
        guard let sourceParent = source.parent, let sourceName = source.lastComponent,
            let destinationParent = destination.parent, let destinationName = destination.lastComponent
        else {
            throw SystemCallError("renameat", "\(source) -> \(destination)", errno: EINVAL)
        }
        try withDirectory(sourceParent) { from in
            try withDirectory(destinationParent) { to in
                try withCString(sourceName) { (cSource) throws(SystemCallError) in
                    try withCString(destinationName) { (cDestination) throws(SystemCallError) in
                        _ = try retryingOnInterrupt("renameat", "\(source) -> \(destination)") {
                            renameat(from, cSource, to, cDestination)
                        }
                    }
                }
            }
        }
    }

    /// Removes the non-directory `path` (a file, hard link, symlink or FIFO).
    public func unlinkEntry(_ path: TreePath) throws {
        try withParentDescriptor(of: path) { parent, name in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("unlinkat", "\(path)") { unlinkat(parent, cName, 0) }
            }
        }
    }

    /// Removes `path` and everything below it, like `rm -rf`, without changing any mode first:
    /// the test owns everything it removes this way.
    public func removeSubtree(_ path: TreePath) throws {
        try withParentDescriptor(of: path) { parent, name in
            try Self.removeRecursively(name, in: parent, display: "\(path)")
        }
    }

    /// Sets the owner and group of `path` (not following a symlink there). Needs root.
    public func setOwner(_ path: TreePath, _ user: UserIdentity) throws {
        if path.isRoot {
            try retryingOnInterrupt("chown", rootPath) { chown(rootPath, user.uid, user.gid) }
            return
        }
        try withParentDescriptor(of: path) { parent, name in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("fchownat", "\(path)") {
                    fchownat(parent, cName, user.uid, user.gid, AT_SYMLINK_NOFOLLOW)
                }
            }
        }
    }

    // MARK: Helpers

    private func withParentDescriptor(of path: TreePath, _ body: (CInt, [UInt8]) throws -> Void) throws {
        guard let parent = path.parent, let name = path.lastComponent else {
            throw SystemCallError("(tree)", "the root has no parent", errno: EINVAL)
        }
        try withDirectory(parent) { descriptor in try body(descriptor, name) }
    }

    private func withOpenFile(_ path: TreePath, flags: CInt, _ body: (CInt) throws -> Void) throws {
        try withParentDescriptor(of: path) { parent, name in
            let descriptor = try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("openat", "\(path)") { openat(parent, cName, flags | O_NOFOLLOW | O_CLOEXEC) }
            }
            defer { close(descriptor) }
            try body(descriptor)
        }
    }

    private func writePattern(_ descriptor: CInt, byteCount: Int, subject: TreePath) throws {
        let pattern = Self.pattern(byteCount, period: 241)
        var written = 0
        while written < pattern.count {
            let count = try retryingOnInterrupt("write", "\(subject)") {
                pattern.withUnsafeBytes { buffer in
                    write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                }
            }
            written += count
        }
    }

    private static func removeRecursively(
        _ name: [UInt8], in parent: CInt, display: String
    ) throws(SystemCallError) {
        try withCString(name) { (cName) throws(SystemCallError) in
            var status = stat()
            try retryingOnInterrupt("fstatat", display) { fstatat(parent, cName, &status, AT_SYMLINK_NOFOLLOW) }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                try retryingOnInterrupt("unlinkat", display) { unlinkat(parent, cName, 0) }
                return
            }
            let directory = try retryingOnInterrupt("openat", display) {
                openat(parent, cName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            defer { close(directory) }
            for child in entryNames(of: directory) {
                try removeRecursively(child, in: directory, display: display)
            }
            try retryingOnInterrupt("unlinkat", display) { unlinkat(parent, cName, AT_REMOVEDIR) }
        }
    }
}
