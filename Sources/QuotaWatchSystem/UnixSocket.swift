import Glibc

/// Unix-domain stream sockets named by a path in the file system, for the control socket.
///
/// Paths are bytes, as everywhere else. Only path-named sockets are supported: an empty path
/// (the abstract namespace) is EINVAL.
package enum UnixSocket {
    /// The longest path a socket can be bound to or reached at: `sun_path` holds 108 bytes,
    /// including the terminating NUL. A longer path fails with ENAMETOOLONG.
    package static let maximumPathLength = MemoryLayout<sockaddr_un>.size - sunPathOffset - 1

    private static let sunPathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!

    /// Identifies one file: a path that names the same device and inode is still that file.
    package struct FileIdentity: Hashable, Sendable {
        package var device: UInt64
        package var inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// What a path names, without following a symlink in its last component.
    package enum PathKind: Hashable, Sendable {
        case missing
        case socket(FileIdentity)
        /// Anything else: a regular file, directory, symlink, fifo or device.
        case other
    }

    /// A directory that was made, or found, to hold a socket.
    package struct DirectoryInfo: Hashable, Sendable {
        /// True when this call made it.
        package var wasCreated: Bool
        package var ownerID: UInt32
        /// The permission bits.
        package var mode: UInt32

        package init(wasCreated: Bool, ownerID: UInt32, mode: UInt32) {
            self.wasCreated = wasCreated
            self.ownerID = ownerID
            self.mode = mode
        }
    }

    /// Makes a listening socket at `path` with permission bits `mode`. The backlog defaults to
    /// SOMAXCONN (the kernel caps it at `net.core.somaxconn`): a thousand clients connecting at
    /// once wait in it for `accept` instead of failing with EAGAIN.
    ///
    /// The socket gets its mode before bind, so the file never exists with wider permissions
    /// than `mode` (Linux creates it from the socket's own mode, minus the umask); it is then
    /// set exactly with chmod, which only ever adds back bits the umask took away. Nothing
    /// is removed first: an existing file at `path` is EADDRINUSE, and deciding whether it is
    /// stale is the caller's business.
    ///
    /// The corresponding C functions are `socket`, `fchmod`, `bind`, `fchmodat` and `listen`.
    package static func listen(
        at path: [UInt8], mode: mode_t = 0o600, backlog: CInt = SOMAXCONN
    ) throws(Errno) -> UnixSocketListener {
        let descriptor = try makeSocket()
        var bound: FileIdentity?
        do throws(Errno) {
            _ = try valueOrErrno { system_fchmod(descriptor.rawValue, mode) }.get()
            try unsafe withAddress(path) { address, length throws(Errno) in
                _ = try valueOrErrno { unsafe system_bind(descriptor.rawValue, address, length) }.get()
            }
            guard case .socket(let identity) = try kind(at: path) else {
                // Replaced in the instant since bind: whatever is there now is not ours.
                throw Errno.noSuchFileOrDirectory
            }
            bound = identity
            if try permissionBits(at: path) != mode & 0o7777 {
                try unsafe withCString(path) { cPath throws(Errno) in
                    _ = try valueOrErrno {
                        unsafe system_fchmodat(FileDescriptor.currentWorkingDirectory.rawValue, cPath, mode, 0)
                    }.get()
                }
            }
            _ = try valueOrErrno { system_listen(descriptor.rawValue, backlog) }.get()
            return UnixSocketListener(descriptor: descriptor, path: path, identity: identity)
        } catch {
            if let bound {
                UnixSocketListener(descriptor: descriptor, path: path, identity: bound).unlinkIfStillBound()
            }
            descriptor.close()
            throw error
        }
    }

    /// Connects to the socket at `path`. With a `timeout`, both it and every later send and
    /// receive on the descriptor give up after that long with EAGAIN; connect itself waits
    /// only when the listener's backlog is full.
    ///
    /// A path with nothing listening fails with ENOENT when no file is there and
    /// ECONNREFUSED when one is (a socket left by a crashed process, or not a socket at all).
    ///
    /// The corresponding C functions are `socket`, `setsockopt` and `connect`.
    package static func connect(to path: [UInt8], timeout: Duration? = nil) throws(Errno) -> FileDescriptor {
        let descriptor = try makeSocket()
        do throws(Errno) {
            if let timeout {
                try descriptor.setReceiveTimeout(timeout)
                try descriptor.setSendTimeout(timeout)
            }
            try unsafe withAddress(path) { address, length throws(Errno) in
                _ = try valueOrErrno { unsafe system_connect(descriptor.rawValue, address, length) }.get()
            }
            return descriptor
        } catch {
            descriptor.close()
            throw error
        }
    }

    /// What `path` names now.
    ///
    /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    package static func kind(at path: [UInt8]) throws(Errno) -> PathKind {
        let raw: stat
        do {
            raw = try rawStatus(at: path)
        } catch .noSuchFileOrDirectory {
            return .missing
        }
        guard raw.st_mode & S_IFMT == S_IFSOCK else { return .other }
        return .socket(FileIdentity(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino)))
    }

    /// Removes the name `path`, which must not be a directory.
    ///
    /// The corresponding C function is `unlinkat`.
    package static func unlink(_ path: [UInt8]) throws(Errno) {
        try FileDescriptor.currentWorkingDirectory.unlink(path)
    }

    /// Makes the directory `path` with exactly `mode` if it does not exist, and says who owns
    /// it either way. Its parent must exist. A symlink or non-directory there is ENOTDIR.
    ///
    /// The corresponding C functions are `mkdirat`, `fchmodat` and `fstatat`.
    package static func makeDirectory(_ path: [UInt8], mode: mode_t = 0o700) throws(Errno) -> DirectoryInfo {
        var created = false
        try unsafe withCString(path) { cPath throws(Errno) in
            let directory = FileDescriptor.currentWorkingDirectory.rawValue
            switch valueOrErrno({ unsafe system_mkdirat(directory, cPath, mode) }) {
            case .success:
                created = true
                _ = try valueOrErrno { unsafe system_fchmodat(directory, cPath, mode, 0) }.get()
            case .failure(.fileExists): break
            case .failure(let error): throw error
            }
        }
        let raw = try rawStatus(at: path)
        guard raw.st_mode & S_IFMT == S_IFDIR else { throw Errno.notDirectory }
        return DirectoryInfo(wasCreated: created, ownerID: UInt32(raw.st_uid), mode: UInt32(raw.st_mode & 0o7777))
    }

    private static func permissionBits(at path: [UInt8]) throws(Errno) -> mode_t {
        try rawStatus(at: path).st_mode & 0o7777
    }

    private static func rawStatus(at path: [UInt8]) throws(Errno) -> stat {
        var raw = stat()
        try unsafe withCString(path) { cPath throws(Errno) in
            _ = try valueOrErrno {
                unsafe system_fstatat(
                    FileDescriptor.currentWorkingDirectory.rawValue, cPath, &raw, AT_SYMLINK_NOFOLLOW)
            }.get()
        }
        return raw
    }

    private static func makeSocket() throws(Errno) -> FileDescriptor {
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        return FileDescriptor(rawValue: try valueOrErrno { system_socket(AF_UNIX, type, 0) }.get())
    }

    /// Calls `body` with a `sockaddr_un` for `path` and its length.
    private static func withAddress(
        _ path: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Errno) -> Void
    ) throws(Errno) {
        guard !path.isEmpty, !path.contains(0) else { throw Errno.invalidArgument }
        guard path.count <= maximumPathLength else { throw Errno.nameTooLong }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        unsafe withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            unsafe sunPath.copyBytes(from: path)
        }
        let length = socklen_t(sunPathOffset + path.count + 1)
        try unsafe withUnsafePointer(to: &address) { pointer throws(Errno) in
            try unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(Errno) in
                try unsafe body(generic, length)
            }
        }
    }
}

/// How a line read from a socket ended.
package struct ReceivedLine: Hashable, Sendable {
    package enum Ending: Hashable, Sendable {
        /// A newline, which is not part of ``bytes``.
        case newline
        /// The peer closed (or shut down) its side first.
        case endOfFile
        /// ``bytes`` reached the limit without a newline; the rest is unread.
        case limitReached
    }

    package var bytes: [UInt8]
    package var ending: Ending

    package init(bytes: [UInt8], ending: Ending) {
        self.bytes = bytes
        self.ending = ending
    }
}

extension FileDescriptor {
    /// Sends all of `bytes` on a connected socket. A peer that has gone away makes this throw
    /// EPIPE (or ECONNRESET) instead of raising SIGPIPE, which would end the whole process.
    ///
    /// The corresponding C function is `send` with `MSG_NOSIGNAL`.
    package func sendAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var sent = 0
        while sent < array.count {
            let result = unsafe array.withUnsafeBytes { buffer in
                valueOrErrno {
                    unsafe system_send(rawValue, buffer.baseAddress! + sent, buffer.count - sent, CInt(MSG_NOSIGNAL))
                }
            }
            sent += try result.get()
        }
    }

    /// Receives up to and including the first newline, or until the peer closes, or until
    /// `maximumBytes` have arrived without one. Bytes that arrive after the newline in the same
    /// read are dropped: each side of the control protocol sends one line and then stops.
    ///
    /// Without a `deadline` each receive waits as long as the socket's receive timeout allows;
    /// with one, the whole line must arrive by then. Either way a timeout is EAGAIN.
    ///
    /// The corresponding C functions are `recv` and `setsockopt` with `SO_RCVTIMEO`.
    package func receiveLine(
        maximumBytes: Int, deadline: ContinuousClock.Instant? = nil
    ) throws(Errno) -> ReceivedLine {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while line.count < maximumBytes {
            if let deadline {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw Errno.resourceTemporarilyUnavailable }
                try setReceiveTimeout(remaining)
            }
            let wanted = min(chunk.count, maximumBytes - line.count)
            let count = try unsafe chunk.withUnsafeMutableBytes { buffer in
                valueOrErrno { unsafe system_recv(rawValue, buffer.baseAddress!, wanted, 0) }
            }.get()
            if count == 0 { return ReceivedLine(bytes: line, ending: .endOfFile) }
            if let newline = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                line += chunk[..<newline]
                return ReceivedLine(bytes: line, ending: .newline)
            }
            line += chunk[..<count]
        }
        return ReceivedLine(bytes: line, ending: .limitReached)
    }

    /// Whatever the peer has sent, up to `maximumBytes`, waiting as the receive timeout allows;
    /// empty at the end of the stream. For streams of lines, which ``receiveLine`` would cut.
    ///
    /// The corresponding C function is `recv`.
    package func receiveSome(maximumBytes: Int) throws(Errno) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: maximumBytes)
        let count = try unsafe chunk.withUnsafeMutableBytes { buffer in
            valueOrErrno { unsafe system_recv(rawValue, buffer.baseAddress!, buffer.count, 0) }
        }.get()
        return Array(chunk[..<count])
    }

    /// How long a receive may wait before failing with EAGAIN; zero (or less) waits forever.
    ///
    /// The corresponding C function is `setsockopt` with `SO_RCVTIMEO`.
    package func setReceiveTimeout(_ timeout: Duration) throws(Errno) {
        try setTimeout(SO_RCVTIMEO, timeout)
    }

    /// How long a send (or a connect to a full backlog) may wait before failing with EAGAIN;
    /// zero (or less) waits forever.
    ///
    /// The corresponding C function is `setsockopt` with `SO_SNDTIMEO`.
    package func setSendTimeout(_ timeout: Duration) throws(Errno) {
        try setTimeout(SO_SNDTIMEO, timeout)
    }

    /// Which directions of a connection ``shutdown(_:)`` closes.
    package enum ShutdownDirection: Sendable {
        case reading
        case writing
        case both
    }

    /// Closes one or both directions of a connected socket; the peer sees end-of-file even
    /// while another process still holds a copy of the descriptor.
    ///
    /// The corresponding C function is `shutdown`.
    package func shutdown(_ direction: ShutdownDirection) throws(Errno) {
        let how: CInt
        switch direction {
        case .reading: how = CInt(SHUT_RD)
        case .writing: how = CInt(SHUT_WR)
        case .both: how = CInt(SHUT_RDWR)
        }
        _ = try valueOrErrno { system_shutdown(rawValue, how) }.get()
    }

    /// Waits for, then takes, an exclusive advisory lock on the open file or directory. Locking
    /// a socket's directory keeps two daemons starting at once from both deciding that a socket
    /// is stale and replacing each other's. Closing the descriptor releases the lock.
    ///
    /// The corresponding C function is `flock` with `LOCK_EX`.
    package func lockExclusively() throws(Errno) {
        _ = try valueOrErrno { system_flock(rawValue, LOCK_EX) }.get()
    }

    private func setTimeout(_ option: CInt, _ timeout: Duration) throws(Errno) {
        var value = timeval(duration: timeout)
        _ = try valueOrErrno {
            unsafe system_setsockopt(rawValue, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }.get()
    }
}

extension timeval {
    /// Rounds up, so that a positive duration below a microsecond does not become "forever".
    fileprivate init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else {
            self.init(tv_sec: 0, tv_usec: 0)
            return
        }
        var microseconds = (attoseconds + 999_999_999_999) / 1_000_000_000_000
        var wholeSeconds = seconds
        if microseconds >= 1_000_000 {
            wholeSeconds += 1
            microseconds -= 1_000_000
        }
        self.init(tv_sec: Int(wholeSeconds), tv_usec: Int(microseconds))
    }
}
