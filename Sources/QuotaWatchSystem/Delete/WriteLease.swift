import CQuotaWatchShims
import Glibc

/// A write lease on one regular file, the kernel's own answer to "does anyone else have this
/// file open?" where `/proc` cannot give it (another user's processes, for a daemon that is not
/// root). `F_SETLEASE` with `F_WRLCK` is granted only while no other descriptor, and no
/// writable mapping, of the file exists anywhere; while it is held, anyone who opens the file
/// waits for the lease to be given back, so holding it across `unlinkat` closes the race.
///
/// It needs the file's owner (or `CAP_LEASE`), a file system that has leases, and
/// `fs.leases-enable`. A lease break is signalled to the holder: `SIGURG`, whose default action
/// is to ignore it, instead of `SIGIO`, whose default action would end the process.
struct WriteLease {
    private let file: FileDescriptor

    /// Opens `name` in `directory` read-only (never following a symlink, never blocking on a
    /// FIFO swapped in) and takes the lease, if the file is still `identity`.
    ///
    /// The corresponding C functions are `openat` and `fcntl` with `F_SETLEASE`.
    static func take(_ name: [UInt8], in directory: FileDescriptor, identity: FileIdentity) -> Result<WriteLease, Errno>
    {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        let opened: CInt
        do {
            opened = try unsafe withCString(name) { path throws(Errno) in
                try valueOrErrno { unsafe system_openat(directory.rawValue, path, flags, 0) }.get()
            }
        } catch {
            return .failure(error)
        }
        let file = FileDescriptor(rawValue: opened)
        do throws(Errno) {
            guard let status = try? file.status(), status.kind == .regular, FileIdentity(status) == identity else {
                throw Errno.staleHandle
            }
            _ = try valueOrErrno { system_fcntl(opened, CInt(QW_F_SETSIG), SIGURG) }.get()
            _ = try valueOrErrno { system_fcntl(opened, CInt(QW_F_SETLEASE), CInt(F_WRLCK)) }.get()
        } catch {
            file.close()
            return .failure(error)
        }
        return .success(WriteLease(file: file))
    }

    /// Whether the lease is still whole: someone who opened the file since starts breaking it.
    ///
    /// The corresponding C function is `fcntl` with `F_GETLEASE`.
    var isIntact: Bool {
        (try? valueOrErrno { system_fcntl(file.rawValue, CInt(QW_F_GETLEASE), 0) }.get()) == CInt(F_WRLCK)
    }

    /// Gives the lease back (closing its descriptor does).
    func release() { file.close() }
}
