import CQuotaWatchShims
import Glibc

/// Termination signals delivered to one waiting thread instead of an asynchronous handler.
public enum TerminationSignals {
    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and every thread it starts
    /// afterwards; call it first thing, before any thread exists. SIGPIPE is ignored so a
    /// client that hangs up costs an EPIPE, not the daemon.
    ///
    /// The corresponding C functions are `pthread_sigmask` and `signal`.
    public static func block() {
        var set = signalSet()
        _ = unsafe system_pthread_sigmask(SIG_BLOCK, &set, nil)
        system_ignore_signal(SIGPIPE)
    }

    /// SIGHUP, which asks the daemon to read its config again rather than to stop.
    public static let hangup = SIGHUP

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        _ = unsafe sigemptyset(&set)
        for number in [SIGINT, SIGTERM, SIGHUP] { _ = unsafe sigaddset(&set, number) }
        return set
    }
}

/// Where a thread waits for a termination signal, and can be woken without one: a signalfd
/// for the signals ``TerminationSignals/block()`` blocks, polled beside a wake-up pipe.
public final class TerminationSignalWaiter: Sendable {
    private let signals: FileDescriptor
    private let wakeup: WakeupPipe

    /// The corresponding C function is `signalfd`.
    public init() throws(Errno) {
        var set = TerminationSignals.signalSet()
        signals = FileDescriptor(rawValue: try valueOrErrno { unsafe system_signalfd(&set) }.get())
        do {
            wakeup = try WakeupPipe()
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
    public func wait() -> Int32? {
        var record = [UInt8](repeating: 0, count: Int(QW_SIGNALFD_RECORD_SIZE))
        while true {
            guard let ready = try? Readiness.wait(for: [signals, wakeup.readEnd], timeoutMilliseconds: -1),
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
    public func stop() { wakeup.wake() }

    /// Closes both descriptors; call it once the waiting thread has returned.
    public func close() {
        signals.close()
        wakeup.close()
    }
}

/// CPU time used by the calling thread.
public enum ThreadCPUTime {
    /// The corresponding C function is `clock_gettime` with `CLOCK_THREAD_CPUTIME_ID`.
    public static func current() -> Duration {
        var time = timespec()
        guard unsafe system_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}

public enum ProcessIdentity {
    /// The corresponding C function is `getpid`.
    public static var processID: Int32 { system_getpid() }
    /// The corresponding C function is `geteuid`.
    public static var effectiveUserID: UInt32 { system_geteuid() }
}
