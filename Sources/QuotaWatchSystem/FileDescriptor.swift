import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// An open file descriptor. A plain value: whoever opens one closes it.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    package let rawValue: CInt
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// The current working directory, for paths given by the user.
    package static let currentWorkingDirectory = FileDescriptor(rawValue: AT_FDCWD)
    package static let standardOutput = FileDescriptor(rawValue: 1)
    package static let standardError = FileDescriptor(rawValue: 2)

    /// Opens a directory for listing and for opening names relative to it.
    /// With `followSymlinks: false` a symlink in the last component fails with ELOOP or ENOTDIR
    /// instead of being followed, which is what keeps a crawl inside its tree.
    ///
    /// The corresponding C function is `openat`.
    package func openDirectory(
        _ name: some Collection<UInt8>, followSymlinks: Bool = false
    ) throws(Errno)
        -> FileDescriptor
    {
        var flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        if !followSymlinks { flags |= O_NOFOLLOW }
        return try unsafe withCString(name) { path throws(Errno) in
            try FileDescriptor(rawValue: valueOrErrno { unsafe system_openat(rawValue, path, flags, 0) }.get())
        }
    }

    /// The status of `name` relative to this directory, never following a symlink; an empty
    /// name means this descriptor itself.
    ///
    /// The corresponding C function is `fstatat`.
    package func status(of name: some Collection<UInt8>) throws(Errno) -> FileStatus {
        try unsafe withCString(name) { path throws(Errno) in try unsafe statusOfCString(path) }
    }

    /// The same for a name held in an array: the engine stats one per changed file, and a
    /// generic called from another module runs unspecialized.
    package func status(of name: [UInt8]) throws(Errno) -> FileStatus {
        try unsafe withCString(name) { path throws(Errno) in try unsafe statusOfCString(path) }
    }

    /// The status of what `path` (relative to this directory) leads to, following symlinks
    /// on the way and at its end, as opening it would.
    ///
    /// The corresponding C function is `fstatat`.
    package func statusFollowingSymlinks(of path: [UInt8]) throws(Errno) -> FileStatus {
        try unsafe withCString(path) { cPath throws(Errno) in
            var raw = stat()
            _ = try valueOrErrno { unsafe system_fstatat(rawValue, cPath, &raw, 0) }.get()
            return FileStatus(raw)
        }
    }

    /// The status of the open file itself.
    ///
    /// The corresponding C function is `fstatat` with `AT_EMPTY_PATH`.
    package func status() throws(Errno) -> FileStatus {
        var raw = stat()
        _ = try valueOrErrno { unsafe system_fstatat(rawValue, "", &raw, CInt(QW_AT_EMPTY_PATH)) }.get()
        return FileStatus(raw)
    }

    func statusOfCString(_ path: UnsafePointer<CChar>) throws(Errno) -> FileStatus {
        var raw = stat()
        _ = try valueOrErrno { unsafe system_fstatat(rawValue, path, &raw, AT_SYMLINK_NOFOLLOW) }.get()
        return FileStatus(raw)
    }

    /// Creates an empty file that must not exist yet (EEXIST for any name there, a symlink
    /// included, which is not followed), readable by its owner only. It is never opened, so
    /// it works when the process is out of descriptors.
    ///
    /// The corresponding C function is `mknodat` with `S_IFREG`.
    package func createExclusiveFile(_ name: some Collection<UInt8>) throws(Errno) {
        _ = try unsafe withCString(name) { path throws(Errno) in
            try valueOrErrno { unsafe system_mknodat_regular(rawValue, path, 0o600) }.get()
        }
    }

    /// Removes a non-directory name relative to this directory; never follows a symlink.
    ///
    /// The corresponding C function is `unlinkat`.
    package func unlink(_ name: some Collection<UInt8>) throws(Errno) {
        _ = try unsafe withCString(name) { path throws(Errno) in
            try valueOrErrno { unsafe system_unlinkat(rawValue, path, 0) }.get()
        }
    }

    /// Closes the descriptor. Never retried: after EINTR Linux has already released it.
    ///
    /// The corresponding C function is `close`.
    package func close() {
        _ = system_close(rawValue)
    }

    /// Writes all of `bytes`, retrying short writes.
    ///
    /// The corresponding C function is `write`.
    package func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let result = unsafe array.withUnsafeBytes { buffer in
                valueOrErrno { unsafe system_write(rawValue, buffer.baseAddress! + written, buffer.count - written) }
            }
            written += try result.get()
        }
    }

    /// Whether the descriptor is a terminal.
    ///
    /// The corresponding C function is `isatty`.
    package var isTerminal: Bool { system_isatty(rawValue) == 1 }
}

/// Calls `body` with `name` as a NUL-terminated C string. Names with an embedded NUL cannot
/// exist on Linux, so they are rejected with EINVAL rather than silently truncated.
func withCString<Result>(
    _ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) throws(Errno) -> Result
) throws(Errno) -> Result {
    // A name (at most 255 bytes on Linux) is copied on the stack: the engine stats one per
    // changed file, and a heap copy each time was a malloc and a free per stat.
    let count = name.count
    if count < 512 {
        return try unsafe withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) {
            buffer throws(Errno) in
            var index = 0
            for byte in name {
                if byte == 0 { throw Errno.invalidArgument }
                unsafe buffer[index] = CChar(bitPattern: byte)
                index += 1
            }
            unsafe buffer[index] = 0
            return try unsafe body(UnsafePointer(buffer.baseAddress!))
        }
    }
    var bytes = [UInt8]()
    bytes.reserveCapacity(name.count + 1)
    for byte in name {
        if byte == 0 { throw Errno.invalidArgument }
        bytes.append(byte)
    }
    bytes.append(0)
    return try unsafe bytes.withUnsafeBufferPointer { buffer throws(Errno) in
        try unsafe buffer.withMemoryRebound(to: CChar.self) { chars throws(Errno) in
            try unsafe body(chars.baseAddress!)
        }
    }
}

extension FileStatus {
    init(_ raw: stat) {
        let kind: Kind
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        // Every field is the kernel's word, for a file anyone with write access may have made:
        // sizes near 2⁶³ (a sparse file), blocks × 512 past 2⁶⁴, times past 2262 all saturate.
        self.init(
            device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino), kind: kind, linkCount: UInt64(raw.st_nlink),
            apparentBytes: UInt64(max(raw.st_size, 0)),
            allocatedBytes: Saturating.product(UInt64(max(raw.st_blocks, 0)), 512),
            modifiedNanoseconds: FileTime.nanosecondsSinceEpoch(
                seconds: Int64(raw.st_mtim.tv_sec), nanoseconds: Int64(raw.st_mtim.tv_nsec)),
            changedNanoseconds: FileTime.nanosecondsSinceEpoch(
                seconds: Int64(raw.st_ctim.tv_sec), nanoseconds: Int64(raw.st_ctim.tv_nsec)),
            accessedNanoseconds: FileTime.nanosecondsSinceEpoch(
                seconds: Int64(raw.st_atim.tv_sec), nanoseconds: Int64(raw.st_atim.tv_nsec)))
    }
}

/// Whole small files, such as the ones in /proc.
package enum SmallFile {
    /// Reads at most `limit` bytes of the file at `path`.
    ///
    /// The corresponding C functions are `openat` and `read`.
    package static func read(_ path: String, limit: Int = 64 * 1024) throws(Errno) -> [UInt8] {
        try read(bytes: Array(path.utf8), limit: limit)
    }

    /// Reads at most `limit` bytes of the file at `path`, given as raw bytes. Opened with
    /// `O_NONBLOCK`, so a FIFO found where a file was expected fails or reads nothing instead
    /// of waiting for a writer; a file named by a person goes through ``RegularFile`` instead.
    ///
    /// The corresponding C functions are `openat` and `read`.
    package static func read(bytes path: [UInt8], limit: Int = 64 * 1024) throws(Errno) -> [UInt8] {
        let raw = try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_openat(AT_FDCWD, cPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) }.get()
        }
        let descriptor = FileDescriptor(rawValue: raw)
        defer { descriptor.close() }
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let result = unsafe bytes.withUnsafeMutableBytes { buffer in
                valueOrErrno { unsafe system_read(raw, buffer.baseAddress! + filled, limit - filled) }
            }
            let count = try result.get()
            if count == 0 { break }
            filled += count
        }
        return Array(bytes[0..<filled])
    }
}
