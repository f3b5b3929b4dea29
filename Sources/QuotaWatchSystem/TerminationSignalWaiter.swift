import CQuotaWatchShims
import Glibc

/// Where a thread waits for a termination signal, and can be woken without one: a signalfd
/// for the signals ``TerminationSignals/block()`` blocks, polled beside a wake-up event.
package final class TerminationSignalWaiter: Sendable {
    private let signals: FileDescriptor
    private let wakeup: WakeupEvent

    /// The corresponding C function is `signalfd`.
    package init() throws(Errno) {
        var set = TerminationSignals.signalSet()
        signals = FileDescriptor(rawValue: try valueOrErrno { unsafe system_signalfd(&set) }.get())
        do {
            wakeup = try WakeupEvent()
        } catch {
            signals.close()
            throw error
        }
    }

    /// Waits for SIGINT, SIGTERM or SIGHUP and returns its number, or nil once ``stop()`` has
    /// been called (or the wait failed, which leaves nothing to wait on). The signals must be
    /// blocked in every thread, as ``TerminationSignals/block()`` does, or they are delivered
    /// the ordinary way instead.
    ///
    /// The corresponding C functions are `poll` and `read`.
    package func wait() -> Int32? {
        var record = [UInt8](repeating: 0, count: Int(QW_SIGNALFD_RECORD_SIZE))
        while true {
            guard let ready = try? Readiness.wait(for: [signals, wakeup.descriptor], timeoutMilliseconds: -1),
                !ready.contains(1)
            else { return nil }
            let count = unsafe record.withUnsafeMutableBytes { raw in
                valueOrErrno { unsafe system_read(signals.rawValue, raw.baseAddress!, raw.count) }
            }
            switch count {
            case .success(let count) where count == record.count:
                // ssi_signo, the record's first field, in the machine's byte order.
                return unsafe record.withUnsafeBytes { unsafe Int32(bitPattern: $0.load(as: UInt32.self)) }
            case .success, .failure(.resourceTemporarilyUnavailable):
                continue
            case .failure:
                return nil
            }
        }
    }

    /// Wakes ``wait()``, now or whenever it is next called, to return nil.
    package func stop() { wakeup.wake() }

    /// Closes both descriptors; call it once the waiting thread has returned.
    package func close() {
        signals.close()
        wakeup.close()
    }
}
