import Glibc

/// A failed system call made by the test support code, with the call, what it
/// was applied to, and errno.
public struct SystemCallError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let subject: String
    public let errno: CInt

    public init(_ call: String, _ subject: String, errno: CInt) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    public var description: String {
        "\(call)(\(subject)) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Runs `body` again while it fails with EINTR; returns its result, or throws
/// with errno when it returns -1.
@discardableResult
func retryingOnInterrupt<Result: BinaryInteger>(
    _ call: String,
    _ subject: @autoclosure () -> String,
    _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemCallError(call, subject(), errno: code)
    }
}

/// Throws when `body` returns a nonzero error number, as the posix_spawn and
/// posix_fallocate families do instead of setting errno.
func checkingReturnedError(
    _ call: String,
    _ subject: @autoclosure () -> String,
    _ body: () -> CInt
) throws(SystemCallError) {
    while true {
        let code = body()
        if code == 0 { return }
        if code == EINTR { continue }
        throw SystemCallError(call, subject(), errno: code)
    }
}
