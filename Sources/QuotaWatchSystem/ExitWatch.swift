import Foundation
import Glibc

/// A descriptor that becomes readable when one process exits, so that waiting for the exit,
/// a timeout and a cancellation are one `poll`: no SIGCHLD handler, no polling loop.
///
/// Linux 5.3 and later give a pidfd. Before that, a thread blocks in `waitid` with `WNOWAIT`
/// (which leaves the process unreaped, so its process group stays valid for `kill`) and then
/// closes the write end of a pipe: the read end polls as hung up. Closing, unlike writing,
/// cannot raise SIGPIPE however late the thread gets there.
struct ExitWatch {
    let descriptor: FileDescriptor

    /// The corresponding C functions are `pidfd_open`, or `pipe2` and `waitid`.
    init(processID: pid_t, method: ChildProcess.ExitWatchMethod) throws(Errno) {
        if method == .automatic {
            switch valueOrErrno({ system_pidfd_open(processID) }) {
            case .success(let raw):
                descriptor = FileDescriptor(rawValue: raw)
                return
            case .failure(.functionNotImplemented), .failure(.notPermitted):
                break
            case .failure(let error):
                throw error
            }
        }
        let pipe = try WakeupPipe()
        descriptor = pipe.readEnd
        let writeEnd = pipe.writeEnd
        // Never joined: it ends by itself when the process does.
        _ = JoinableThread(name: "exit-watch") {
            _ = valueOrErrno { system_waitid_nowait(processID) }
            writeEnd.close()
        }
    }

    /// Closes the descriptor; a waiter thread closes its own end.
    func close() {
        descriptor.close()
    }
}

extension Errno {
    package static let functionNotImplemented = Errno(rawValue: ENOSYS)
    package static let noSuchProcess = Errno(rawValue: ESRCH)
}

/// Waiting for any process, not only a child, to end.
package enum ProcessWatch {
    /// Waits until the process `processID` has exited (it may remain a zombie until its parent
    /// reaps it), at most `timeout`; returns whether it has. A process that no longer exists
    /// has exited. Needs a pidfd (Linux 5.3).
    ///
    /// The corresponding C functions are `pidfd_open` and `poll`.
    package static func waitForExit(of processID: Int32, timeout: Duration) throws(Errno) -> Bool {
        let raw: CInt
        switch valueOrErrno({ system_pidfd_open(processID) }) {
        case .success(let value): raw = value
        case .failure(.noSuchProcess): return true
        case .failure(let error): throw error
        }
        let descriptor = FileDescriptor(rawValue: raw)
        defer { descriptor.close() }
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return try !Readiness.wait(for: [descriptor], timeoutMilliseconds: milliseconds).isEmpty
    }
}
