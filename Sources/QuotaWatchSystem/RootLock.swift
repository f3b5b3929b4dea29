import Glibc

/// One daemon per ROOT: an exclusive `flock` on `daemon.lock` in ROOT's state directory, held
/// for the life of the process. Two daemons on one ROOT, each with its own `--socket`, would
/// otherwise share the state directory: history would record each deletion twice, and the
/// second one's start-up recovery would close the intents of the first one's running eviction.
///
/// The file holds the holder's pid and socket, so that the one refused can name them. The
/// descriptor is opened `O_CLOEXEC` (a hook or cleaner started by the daemon does not inherit
/// the lock, and cannot keep it after the daemon is gone) and never closed: the kernel
/// releases the lock when the process ends, however it ends.
package struct RootLock: Sendable {
    package static let fileName = "daemon.lock"

    package let descriptor: FileDescriptor

    /// Why the lock was not taken.
    package enum Failure: Error, Sendable, Equatable {
        /// Another process holds it; `holder` is what it wrote (`pid N`, `socket PATH` lines),
        /// empty when it has not written it yet.
        case held(path: [UInt8], holder: [UInt8])
        /// The state directory or the lock file could not be made or opened.
        case system(path: [UInt8], action: String, Errno)
    }

    /// Takes the lock in `directory` (made if missing, mode 0700) without waiting, and writes
    /// `pid` and `socketPath` into it.
    ///
    /// The corresponding C functions are `mkdirat`, `openat`, `flock` with `LOCK_EX | LOCK_NB`,
    /// `ftruncate` and `write`.
    package static func take(
        directory: [UInt8], processID: Int32, socketPath: [UInt8]
    ) throws(Failure) -> RootLock {
        let path = directory + Array("/\(fileName)".utf8)
        do {
            try DurableFile.makeDirectories(directory)
        } catch {
            throw .system(path: directory, action: "make the state directory", error)
        }
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW
        let raw: CInt
        do {
            raw = try unsafe withCString(path) { cPath throws(Errno) in
                try valueOrErrno { unsafe system_openat(AT_FDCWD, cPath, flags, 0o600) }.get()
            }
        } catch {
            throw .system(path: path, action: "open", error)
        }
        let descriptor = FileDescriptor(rawValue: raw)
        do {
            _ = try valueOrErrno { system_flock(raw, LOCK_EX | LOCK_NB) }.get()
        } catch {
            descriptor.close()
            if error == .resourceTemporarilyUnavailable {
                throw .held(path: path, holder: (try? SmallFile.read(bytes: path, limit: 8192)) ?? [])
            }
            throw .system(path: path, action: "lock", error)
        }
        let contents = Array("pid \(processID)\nsocket ".utf8) + socketPath + [UInt8(ascii: "\n")]
        do {
            _ = try valueOrErrno { system_ftruncate(raw, 0) }.get()
            try descriptor.writeAll(contents)
        } catch {
            descriptor.close()
            throw .system(path: path, action: "write", error)
        }
        return RootLock(descriptor: descriptor)
    }

    /// The `pid` and `socket` lines of a holder's file, as written by ``take(directory:processID:socketPath:)``.
    package static func holder(_ contents: [UInt8]) -> (processID: String?, socket: [UInt8]?) {
        var processID: String?
        var socket: [UInt8]?
        for line in contents.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: Array("pid ".utf8)) { processID = String(decoding: line.dropFirst(4), as: UTF8.self) }
            if line.starts(with: Array("socket ".utf8)) { socket = Array(line.dropFirst(7)) }
        }
        return (processID, socket)
    }
}
