import CQuotaWatchShims
import Glibc

/// Wakes a thread blocked in ``Readiness/wait(for:timeoutMilliseconds:)`` or `poll`: an
/// eventfd, readable while a wake-up is pending. One descriptor where a pipe takes two, which
/// counts under a low limit on open files (each thread that can be woken has one).
package struct WakeupEvent: Sendable {
    /// What to poll for readability.
    package let descriptor: FileDescriptor

    /// The corresponding C function is `eventfd` (non-blocking, close-on-exec).
    package init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try valueOrErrno { system_eventfd_cloexec() }.get())
    }

    /// Makes the descriptor readable until ``drain()``. Adding to the counter cannot block:
    /// it would only at 2^64 - 2 pending wake-ups.
    ///
    /// The corresponding C function is `write`.
    package func wake() {
        var one: UInt64 = 1
        _ = unsafe withUnsafeBytes(of: &one) { bytes in
            unsafe system_write(descriptor.rawValue, bytes.baseAddress!, bytes.count)
        }
    }

    /// Takes every pending wake-up at once, so that the next ``wake()`` is what makes the
    /// descriptor readable again.
    ///
    /// The corresponding C function is `read`.
    package func drain() {
        var count: UInt64 = 0
        _ = unsafe withUnsafeMutableBytes(of: &count) { bytes in
            unsafe system_read(descriptor.rawValue, bytes.baseAddress!, bytes.count)
        }
    }

    package func close() { descriptor.close() }
}
