import CQuotaWatchShims
import Glibc

/// What puts a terminal back when a full-screen view cannot: a crash, an exit that skipped it.
package enum FatalSignalRestore {
    /// On SIGSEGV, SIGBUS, SIGILL, SIGTRAP (a Swift runtime trap), SIGFPE or SIGABRT, writes
    /// `bytes` to standard output and restores the terminal modes standard input has now, then
    /// dies of the signal as it would have. Call it before the terminal's modes are changed.
    ///
    /// The corresponding C functions are `sigaction` and `tcgetattr`.
    package static func install(_ bytes: [UInt8]) {
        unsafe bytes.withUnsafeBufferPointer { buffer in
            unsafe buffer.withMemoryRebound(to: CChar.self) { characters in
                unsafe system_install_fatal_restore(characters.baseAddress, characters.count)
            }
        }
    }
}
