import Glibc

/// An error number from the kernel, with readable names for the ones QuotaWatch handles.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let staleHandle = Errno(rawValue: ESTALE)
    public static let crossDevice = Errno(rawValue: EXDEV)
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    public static let argumentListTooLong = Errno(rawValue: E2BIG)
    public static let busy = Errno(rawValue: EBUSY)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    public static let noDevice = Errno(rawValue: ENODEV)
    public static let notImplemented = Errno(rawValue: ENOSYS)

    /// The C library's message, such as "No such file or directory".
    public var description: String {
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
