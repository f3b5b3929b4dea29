import Glibc
import QuotaWatchCore

/// A non-blocking pipe, for what needs its two ends: the read end polls as hung up once the
/// write end is closed (``ExitWatch``'s waiter thread). To wake a thread, ``WakeupEvent``
/// takes one descriptor instead of two.
package struct WakeupPipe: Sendable {
    package let readEnd: FileDescriptor
    package let writeEnd: FileDescriptor

    /// The corresponding C function is `pipe2`.
    package init() throws(Errno) {
        var ends: [CInt] = [0, 0]
        _ = try unsafe ends.withUnsafeMutableBufferPointer { buffer throws(Errno) in
            try valueOrErrno { unsafe system_pipe_cloexec(buffer.baseAddress!) }.get()
        }
        readEnd = FileDescriptor(rawValue: ends[0])
        writeEnd = FileDescriptor(rawValue: ends[1])
    }

    package func wake() { try? writeEnd.writeAll([1]) }

    package func close() {
        readEnd.close()
        writeEnd.close()
    }
}
