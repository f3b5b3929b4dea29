import Glibc

/// An error number from the kernel, with readable names for the ones QuotaWatch handles.
package struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: CInt
    package init(rawValue: CInt) { self.rawValue = rawValue }

    package static let notPermitted = Errno(rawValue: EPERM)
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    package static let interrupted = Errno(rawValue: EINTR)
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    package static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    package static let permissionDenied = Errno(rawValue: EACCES)
    package static let fileExists = Errno(rawValue: EEXIST)
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    package static let isDirectory = Errno(rawValue: EISDIR)
    package static let invalidArgument = Errno(rawValue: EINVAL)
    package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    package static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    package static let noSpace = Errno(rawValue: ENOSPC)
    package static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
    package static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    package static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    package static let addressInUse = Errno(rawValue: EADDRINUSE)
    package static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    package static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    package static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    package static let brokenPipe = Errno(rawValue: EPIPE)
    package static let staleHandle = Errno(rawValue: ESTALE)
    package static let crossDevice = Errno(rawValue: EXDEV)
    package static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    package static let argumentListTooLong = Errno(rawValue: E2BIG)
    package static let busy = Errno(rawValue: EBUSY)
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    package static let notSupported = Errno(rawValue: EOPNOTSUPP)
    package static let noDevice = Errno(rawValue: ENODEV)
    package static let notImplemented = Errno(rawValue: ENOSYS)

    /// The C library's message, such as "No such file or directory".
    package var description: String {
        guard let message = unsafe strerror(rawValue) else { return "error \(rawValue)" }
        return unsafe String(cString: message)
    }

    static var current: Errno { Errno(rawValue: errno) }
}

/// Runs a system call until it is not interrupted, turning -1 into the thread's `errno`.
/// `close` must not go through here: after EINTR its descriptor is already gone.
@inline(__always)
func valueOrErrno<Value: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ call: () -> Value
) -> Result<Value, Errno> {
    while true {
        let value = call()
        if value != -1 { return .success(value) }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        return .failure(error)
    }
}
