import Glibc

/// A socket bound to a path and listening on it. A plain value: whoever makes one closes it.
package struct UnixSocketListener: Sendable {
    package let descriptor: FileDescriptor
    package let path: [UInt8]
    /// The socket file as bound, so that it is never mistaken for one bound later by
    /// someone else at the same path.
    package let identity: UnixSocket.FileIdentity

    /// Waits for the next connection; the new descriptor is close-on-exec from the start.
    /// After ``shutdown()`` it fails with EINVAL.
    ///
    /// The corresponding C function is `accept4` with `SOCK_CLOEXEC`.
    package func accept() throws(Errno) -> FileDescriptor {
        let flags = CInt(SOCK_CLOEXEC.rawValue)
        return FileDescriptor(rawValue: try valueOrErrno { system_accept4(descriptor.rawValue, flags) }.get())
    }

    /// Stops accepting: a thread blocked in ``accept()`` returns with EINVAL, as does every
    /// later call. The descriptor stays open until ``close()``, so its number cannot be reused
    /// under a thread that is still about to call accept.
    ///
    /// The corresponding C function is `shutdown`.
    package func shutdown() {
        _ = system_shutdown(descriptor.rawValue, CInt(SHUT_RDWR))
    }

    package func close() {
        descriptor.close()
    }

    /// Removes the socket file, but only if the path still names the socket this listener
    /// bound; returns whether it did. A later daemon's socket at the same path is left alone.
    /// Call it before ``close()``: while the socket is open the file's inode cannot be freed,
    /// so no other file can have been given its number.
    ///
    /// The corresponding C functions are `fstatat` and `unlinkat`.
    @discardableResult
    package func unlinkIfStillBound() -> Bool {
        guard (try? UnixSocket.kind(at: path)) == .socket(identity) else { return false }
        return (try? UnixSocket.unlink(path)) != nil
    }
}
