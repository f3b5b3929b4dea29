import Glibc

/// What a client needs to decide whether the socket it is about to trust is its own daemon's.
extension UnixSocket {
    /// Who owns a file and what may be done to it, as `lstat` (or `stat`) says.
    package struct Ownership: Hashable, Sendable {
        package enum Kind: Hashable, Sendable { case directory, socket, symlink, other }

        package var kind: Kind
        package var ownerID: UInt32
        /// The permission bits, the sticky bit included.
        package var mode: UInt32

        package init(kind: Kind, ownerID: UInt32, mode: UInt32) {
            self.kind = kind
            self.ownerID = ownerID
            self.mode = mode
        }
    }

    /// The owner, kind and mode of `path`; with `followSymlinks` false, of a symlink itself.
    ///
    /// The corresponding C function is `fstatat` (with `AT_SYMLINK_NOFOLLOW` unless following).
    package static func ownership(at path: [UInt8], followSymlinks: Bool) throws(Errno) -> Ownership {
        var raw = stat()
        try unsafe withCString(path) { cPath throws(Errno) in
            _ = try valueOrErrno {
                unsafe system_fstatat(
                    FileDescriptor.currentWorkingDirectory.rawValue, cPath, &raw,
                    followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW)
            }.get()
        }
        let kind: Ownership.Kind
        switch raw.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        return Ownership(kind: kind, ownerID: UInt32(raw.st_uid), mode: UInt32(raw.st_mode & 0o7777))
    }
}

extension FileDescriptor {
    /// The user of the process at the other end of a connected Unix socket, as the kernel
    /// recorded it when that process called `listen` (or `connect`): it cannot be faked.
    ///
    /// The corresponding C function is `getsockopt` with `SO_PEERCRED`.
    package func peerUserID() throws(Errno) -> UInt32 {
        var user: uid_t = 0
        _ = try valueOrErrno { unsafe system_peer_user(rawValue, &user) }.get()
        return UInt32(user)
    }
}
