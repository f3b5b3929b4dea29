import CQuotaWatchShims
import Glibc

/// CPU time used by the calling thread.
package enum ThreadCPUTime {
    /// The corresponding C function is `clock_gettime` with `CLOCK_THREAD_CPUTIME_ID`.
    package static func current() -> Duration {
        var time = timespec()
        guard unsafe system_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}
