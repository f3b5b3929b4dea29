import Foundation
import Glibc

/// A uniquely named temporary directory, made with mkdtemp, that builds its
/// contents from raw byte names and removes everything when it goes away.
///
/// Every operation walks down from the root with `openat`, one component at a
/// time, and acts relative to the parent's descriptor, so names need not be
/// UTF-8 and paths may be far longer than PATH_MAX.
public final class TempTree {
    /// The absolute path of the tree's root, with symlinks resolved.
    public let rootPath: String
    private var isRemoved = false

    /// Makes a new empty tree under `directory`, else `$TMPDIR` (or /tmp), mode 0700.
    public init(prefix: String = "quotawatch-test", in directory: String? = nil) throws(SystemCallError) {
        let base =
            directory ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw SystemCallError("mkdtemp", base, errno: errno)
        }
        let madePath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let resolved = realpath(madePath, nil) else {
            throw SystemCallError("realpath", madePath, errno: errno)
        }
        rootPath = String(cString: resolved)
        free(resolved)
    }

    deinit {
        remove()
    }

    /// The absolute path of `path` as bytes.
    public func absoluteBytes(_ path: TreePath) -> [UInt8] {
        path.isRoot ? Array(rootPath.utf8) : Array(rootPath.utf8) + [UInt8(ascii: "/")] + path.bytes
    }

    /// The absolute path of `path` as a String, for arguments and messages.
    /// Bytes that are not UTF-8 are replaced, so use it only for UTF-8 names.
    public func absolutePath(_ path: TreePath) -> String {
        String(decoding: absoluteBytes(path), as: UTF8.self)
    }

    // MARK: Building

    /// Makes the directory `path`, whose parent must exist. The mode is set
    /// exactly, whatever the umask.
    public func makeDirectory(_ path: TreePath, mode: mode_t = 0o755) throws(SystemCallError) {
        try withParent(of: path) { (parent, name) throws(SystemCallError) in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("mkdirat", display(path)) { mkdirat(parent, cName, mode) }
                try retryingOnInterrupt("fchmodat", display(path)) { fchmodat(parent, cName, mode, 0) }
            }
        }
    }

    /// Makes `path` and any missing ancestors, like `mkdir -p`.
    public func makeDirectories(_ path: TreePath, mode: mode_t = 0o755) throws(SystemCallError) {
        for depth in stride(from: 1, through: path.depth, by: 1) {
            let prefix = TreePath(components: Array(path.components.prefix(depth)))
            if try !exists(prefix) {
                try makeDirectory(prefix, mode: mode)
            }
        }
    }

    /// Makes a chain of directories below `parent` until the path from the
    /// tree's root is longer than `minimumBytes`, and returns the deepest.
    public func makeDirectoryChain(
        under parent: TreePath,
        longerThan minimumBytes: Int,
        componentLength: Int = 200
    ) throws(SystemCallError) -> TreePath {
        var path = parent
        var level = 0
        while path.bytes.count <= minimumBytes {
            let label = Array("chain\(level)-".utf8)
            let name = label + Array(repeating: UInt8(ascii: "d"), count: max(1, componentLength - label.count))
            path = path.appending(name)
            try makeDirectory(path)
            level += 1
        }
        return path
    }

    /// Writes `contents` to a new file `path`.
    public func writeFile(_ path: TreePath, contents: [UInt8], mode: mode_t = 0o644) throws(SystemCallError) {
        try withNewFile(path, mode: mode) { (descriptor) throws(SystemCallError) in
            var written = 0
            while written < contents.count {
                let count = try retryingOnInterrupt("write", display(path)) {
                    contents.withUnsafeBytes { buffer in
                        write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                    }
                }
                written += count
            }
        }
    }

    /// Writes `byteCount` bytes of a nonzero pattern to a new file `path`.
    public func writeFile(_ path: TreePath, byteCount: Int, mode: mode_t = 0o644) throws(SystemCallError) {
        try writeFile(path, contents: Self.pattern(byteCount, period: 251), mode: mode)
    }

    /// Makes a new empty file `path`.
    public func makeEmptyFile(_ path: TreePath, mode: mode_t = 0o644) throws(SystemCallError) {
        try withNewFile(path, mode: mode) { _ in }
    }

    /// Makes a sparse file of `size` bytes with ftruncate, writing one byte at
    /// each of `dataOffsets` and nothing else.
    public func makeSparseFile(_ path: TreePath, size: Int, dataOffsets: [Int] = []) throws(SystemCallError) {
        try withNewFile(path, mode: 0o644) { (descriptor) throws(SystemCallError) in
            try retryingOnInterrupt("ftruncate", display(path)) { ftruncate(descriptor, off_t(size)) }
            for offset in dataOffsets {
                var byte: UInt8 = 0x5A
                try retryingOnInterrupt("pwrite", display(path)) { pwrite(descriptor, &byte, 1, off_t(offset)) }
            }
        }
    }

    /// Makes a file of `size` bytes whose blocks are allocated with
    /// posix_fallocate but never written.
    public func makeFallocatedFile(_ path: TreePath, size: Int) throws(SystemCallError) {
        try withNewFile(path, mode: 0o644) { (descriptor) throws(SystemCallError) in
            try checkingReturnedError("posix_fallocate", display(path)) {
                posix_fallocate(descriptor, 0, off_t(size))
            }
        }
    }

    /// Makes `path` a new hard link to the existing `target`.
    public func makeHardLink(_ path: TreePath, to target: TreePath) throws(SystemCallError) {
        try withParent(of: target) { (targetParent, targetName) throws(SystemCallError) in
            try withParent(of: path) { (parent, name) throws(SystemCallError) in
                try withCString(targetName) { (cTarget) throws(SystemCallError) in
                    try withCString(name) { (cName) throws(SystemCallError) in
                        try retryingOnInterrupt("linkat", "\(display(target)) -> \(display(path))") {
                            linkat(targetParent, cTarget, parent, cName, 0)
                        }
                    }
                }
            }
        }
    }

    /// Makes `path` a symlink whose content is `target`, which need not exist.
    public func makeSymlink(_ path: TreePath, target: [UInt8]) throws(SystemCallError) {
        try withParent(of: path) { (parent, name) throws(SystemCallError) in
            try withCString(target) { (cTarget) throws(SystemCallError) in
                try withCString(name) { (cName) throws(SystemCallError) in
                    try retryingOnInterrupt("symlinkat", display(path)) { symlinkat(cTarget, parent, cName) }
                }
            }
        }
    }

    public func makeSymlink(_ path: TreePath, target: String) throws(SystemCallError) {
        try makeSymlink(path, target: Array(target.utf8))
    }

    /// Makes a named pipe `path`.
    public func makeFIFO(_ path: TreePath) throws(SystemCallError) {
        try withParent(of: path) { (parent, name) throws(SystemCallError) in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("mkfifoat", display(path)) { mkfifoat(parent, cName, 0o644) }
            }
        }
    }

    /// Sets the permission bits of `path` (not following a symlink there).
    public func setMode(_ path: TreePath, _ mode: mode_t) throws(SystemCallError) {
        if path.isRoot {
            try retryingOnInterrupt("chmod", rootPath) { chmod(rootPath, mode) }
            return
        }
        try withParent(of: path) { (parent, name) throws(SystemCallError) in
            try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("fchmodat", display(path)) { fchmodat(parent, cName, mode, 0) }
            }
        }
    }

    /// Opens the directory `path` and hands its descriptor to `body`; the
    /// descriptor is closed when `body` returns.
    public func withDirectory<Result>(
        _ path: TreePath,
        _ body: (CInt) throws -> Result
    ) throws -> Result {
        let descriptor = try openDirectory(path)
        defer { close(descriptor) }
        return try body(descriptor)
    }

    /// True when an entry named by `path` exists (a dangling symlink counts).
    public func exists(_ path: TreePath) throws(SystemCallError) -> Bool {
        if path.isRoot { return true }
        return try withParent(of: path) { (parent, name) throws(SystemCallError) in
            try withCString(name) { (cName) throws(SystemCallError) in
                var status = stat()
                if fstatat(parent, cName, &status, AT_SYMLINK_NOFOLLOW) == 0 { return true }
                if errno == ENOENT { return false }
                throw SystemCallError("fstatat", display(path), errno: errno)
            }
        }
    }

    // MARK: Removing

    /// Removes the whole tree, making directories writable and searchable
    /// first so that modes set by a test do not get in the way. Errors are
    /// ignored: it runs from deinit.
    public func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        _ = chmod(rootPath, 0o700)
        let descriptor = open(rootPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor >= 0 {
            Self.removeContents(of: descriptor)
            close(descriptor)
        }
        _ = rmdir(rootPath)
    }

    private static func removeContents(of directory: CInt) {
        for name in entryNames(of: directory) {
            withCString(name) { cName in
                var status = stat()
                guard fstatat(directory, cName, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return }
                if status.st_mode & S_IFMT == S_IFDIR {
                    _ = fchmodat(directory, cName, 0o700, 0)
                    let child = openat(directory, cName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if child >= 0 {
                        removeContents(of: child)
                        close(child)
                    }
                    _ = unlinkat(directory, cName, AT_REMOVEDIR)
                } else {
                    _ = unlinkat(directory, cName, 0)
                }
            }
        }
    }

    /// The names in `directory`, except "." and "..".
    static func entryNames(of directory: CInt) -> [[UInt8]] {
        let listing = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0 else { return [] }
        guard let stream = fdopendir(listing) else {
            close(listing)
            return []
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] {
                names.append(name)
            }
        }
        return names
    }

    // MARK: Descriptors

    private func openDirectory(_ path: TreePath) throws(SystemCallError) -> CInt {
        var current = try retryingOnInterrupt("open", rootPath) {
            open(rootPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        for (depth, name) in path.components.enumerated() {
            let next: CInt
            do {
                next = try withCString(name) { (cName) throws(SystemCallError) in
                    try retryingOnInterrupt(
                        "openat",
                        display(TreePath(components: Array(path.components.prefix(depth + 1))))
                    ) { openat(current, cName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                }
            } catch {
                close(current)
                throw error
            }
            close(current)
            current = next
        }
        return current
    }

    @discardableResult
    private func withParent<Result>(
        of path: TreePath,
        _ body: (CInt, [UInt8]) throws(SystemCallError) -> Result
    ) throws(SystemCallError) -> Result {
        guard let parentPath = path.parent, let name = path.lastComponent else {
            throw SystemCallError("(tree)", "the root has no parent", errno: EINVAL)
        }
        let parent = try openDirectory(parentPath)
        defer { close(parent) }
        return try body(parent, name)
    }

    private func withNewFile(
        _ path: TreePath,
        mode: mode_t,
        _ body: (CInt) throws(SystemCallError) -> Void
    ) throws(SystemCallError) {
        try withParent(of: path) { (parent, name) throws(SystemCallError) in
            let descriptor = try withCString(name) { (cName) throws(SystemCallError) in
                try retryingOnInterrupt("openat", display(path)) {
                    openat(parent, cName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
                }
            }
            defer { close(descriptor) }
            try retryingOnInterrupt("fchmod", display(path)) { fchmod(descriptor, mode) }
            try body(descriptor)
        }
    }

    private func display(_ path: TreePath) -> String {
        "\(rootPath)/\(path.reportPath)"
    }
}

/// Hands `body` a NUL-terminated copy of `bytes`.
@discardableResult
func withCString<Result, Failure: Error>(
    _ bytes: [UInt8],
    _ body: (UnsafePointer<CChar>) throws(Failure) -> Result
) throws(Failure) -> Result {
    let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
    return try terminated.withUnsafeBufferPointer { (buffer) throws(Failure) in try body(buffer.baseAddress!) }
}

extension TempTree {
    /// The bytes 1, 2, … `period`, repeated to `count` bytes. Built once per period and cut
    /// to length: built byte by byte, an unoptimised test build spends most of a randomized
    /// test's time making them.
    static func pattern(_ count: Int, period: Int) -> [UInt8] {
        let cached: [UInt8]
        switch period {
        case 239: cached = patternOf239
        case 241: cached = patternOf241
        case 251: cached = patternOf251
        default: return (0..<count).map { UInt8(truncatingIfNeeded: $0 % period + 1) }
        }
        guard count > cached.count else { return Array(cached[0..<count]) }
        return (0..<count).map { UInt8(truncatingIfNeeded: $0 % period + 1) }
    }

    private static let patternLength = 1 << 19
    private static let patternOf239 = (0..<patternLength).map { UInt8(truncatingIfNeeded: $0 % 239 + 1) }
    private static let patternOf241 = (0..<patternLength).map { UInt8(truncatingIfNeeded: $0 % 241 + 1) }
    private static let patternOf251 = (0..<patternLength).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
}
