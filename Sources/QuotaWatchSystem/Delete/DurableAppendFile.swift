import Glibc
import QuotaWatchCore

/// An append-only file whose records are on disk when a synced ``append(_:synced:)`` returns: the audit
/// log's storage. One owner at a time; it does no locking of its own.
package final class DurableAppendFile {
    package let path: [UInt8]
    private var descriptor: FileDescriptor?
    /// The file's length as this process has written it.
    package private(set) var size: UInt64
    /// A failed append may have left part of a record; the next one starts on a new line.
    private var lineMayBeOpen = false

    /// Opens (creating, mode 0600) `path` for appending.
    ///
    /// The corresponding C function is `openat` with `O_APPEND | O_CREAT`.
    package init(path: [UInt8]) throws(Errno) {
        self.path = path
        let opened = try Self.open(path)
        descriptor = opened
        size = try opened.status().apparentBytes
        lineMayBeOpen = try !Self.endsWithNewline(path, size: size)
    }

    /// Whether the file's last byte ends a line: a crash in the middle of an append leaves a
    /// torn record, and the next one must not be glued to it.
    ///
    /// The corresponding C function is `pread`.
    private static func endsWithNewline(_ path: [UInt8], size: UInt64) throws(Errno) -> Bool {
        guard size > 0 else { return true }
        let raw = try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_openat(AT_FDCWD, cPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0) }.get()
        }
        defer { FileDescriptor(rawValue: raw).close() }
        var last: UInt8 = 0
        let count = try valueOrErrno { unsafe system_pread(raw, &last, 1, Int(size) - 1) }.get()
        return count == 1 && last == UInt8(ascii: "\n")
    }

    deinit { descriptor?.close() }

    private static func open(_ path: [UInt8]) throws(Errno) -> FileDescriptor {
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW
        let raw = try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_openat(AT_FDCWD, cPath, flags, 0o600) }.get()
        }
        return FileDescriptor(rawValue: raw)
    }

    /// Appends `record` (one or more whole lines: a group of intents is written by one call)
    /// and, when `synced`, waits until it and everything appended before it is on disk. An
    /// outcome record needs no wait of its own: the next intent's sync carries it, and a crash
    /// before that only leaves an intent for recovery to resolve.
    ///
    /// The corresponding C functions are `write` and `fdatasync`.
    package func append(_ record: [UInt8], synced: Bool = true) throws(Errno) {
        guard let descriptor else { throw Errno.badFileDescriptor }
        let bytes = lineMayBeOpen ? [UInt8(ascii: "\n")] + record : record
        do {
            try descriptor.writeAll(bytes)
            if synced { _ = try valueOrErrno { system_fdatasync(descriptor.rawValue) }.get() }
            lineMayBeOpen = false
            size += UInt64(bytes.count)
        } catch {
            lineMayBeOpen = true
            size = (try? descriptor.status().apparentBytes) ?? size
            throw error
        }
    }

    /// Moves `path` to `path.1`, `path.1` to `path.2` … keeping `keep` old files (the oldest
    /// kept is replaced by the one before it), removes any older ones (`path.keep+1` …, left by an
    /// earlier rotation that kept more), and starts an empty `path`.
    ///
    /// The corresponding C functions are `renameat` and `unlinkat`.
    package func rotate(keep: Int) throws(Errno) {
        descriptor?.close()
        descriptor = nil
        if keep > 0 {
            var older = keep + 1
            while (try? FileDescriptor.currentWorkingDirectory.unlink(path + Array(".\(older)".utf8))) != nil {
                older += 1
            }
            for generation in stride(from: keep - 1, through: 0, by: -1) {
                let from = generation == 0 ? path : path + Array(".\(generation)".utf8)
                do {
                    try DurableFile.rename(from, to: path + Array(".\(generation + 1)".utf8))
                } catch .noSuchFileOrDirectory {
                    continue
                }
            }
        } else {
            try DurableFile.replace(path, with: [])
        }
        let opened = try Self.open(path)
        descriptor = opened
        size = try opened.status().apparentBytes
        lineMayBeOpen = false
    }
}
