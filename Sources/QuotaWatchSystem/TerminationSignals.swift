import CQuotaWatchShims
import Glibc

/// Termination signals delivered to one waiting thread instead of an asynchronous handler.
package enum TerminationSignals {
    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and every thread it starts
    /// afterwards; call it first thing, before any thread exists. SIGPIPE is ignored so a
    /// client that hangs up costs an EPIPE, not the daemon.
    ///
    /// The corresponding C functions are `pthread_sigmask` and `signal`.
    package static func block() {
        var set = signalSet()
        _ = unsafe system_pthread_sigmask(SIG_BLOCK, &set, nil)
        system_ignore_signal(SIGPIPE)
    }

    /// SIGHUP, which asks the daemon to read its config again rather than to stop.
    package static let hangup = SIGHUP

    package static func name(_ signal: Int32) -> String {
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
