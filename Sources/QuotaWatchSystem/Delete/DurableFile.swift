import Glibc
import QuotaWatchCore

/// Small state files written so that a crash leaves the old contents or the new, never a mix.
package enum DurableFile {
    /// Writes `contents` to `path.tmp` with permission bits `mode` (less the umask), syncs it,
    /// and renames it over `path`.
    ///
    /// The corresponding C functions are `openat`, `write`, `fdatasync` and `renameat`.
    package static func replace(_ path: [UInt8], with contents: [UInt8], mode: mode_t = 0o600) throws(Errno) {
        let temporary = path + Array(".tmp".utf8)
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW
        let raw = try unsafe withCString(temporary) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_openat(AT_FDCWD, cPath, flags, mode) }.get()
        }
        let file = FileDescriptor(rawValue: raw)
        defer { file.close() }
        try file.writeAll(contents)
        _ = try valueOrErrno { system_fdatasync(raw) }.get()
        try rename(temporary, to: path)
    }

    /// The corresponding C function is `renameat`.
    package static func rename(_ from: [UInt8], to: [UInt8]) throws(Errno) {
        _ = try unsafe withCString(from) { cFrom throws(Errno) in
            try unsafe withCString(to) { cTo throws(Errno) in
                try valueOrErrno { unsafe system_renameat(AT_FDCWD, cFrom, AT_FDCWD, cTo) }.get()
            }
        }
    }

    /// Creates `path` and every missing directory above it, mode 0700 (state is private).
    ///
    /// The corresponding C function is `mkdirat`.
    package static func makeDirectories(_ path: [UInt8]) throws(Errno) {
        let slash = UInt8(ascii: "/")
        var prefix: [UInt8] = path.first == slash ? [slash] : []
        for component in path.split(separator: slash) {
            prefix += component
            do {
                _ = try unsafe withCString(prefix) { cPath throws(Errno) in
                    try valueOrErrno { unsafe system_mkdirat(AT_FDCWD, cPath, 0o700) }.get()
                }
            } catch .fileExists {
                // Already there (a directory, or the open below says otherwise).
            }
            prefix.append(slash)
        }
        try FileDescriptor.currentWorkingDirectory.openDirectory(path, followSymlinks: true).close()
    }
}
