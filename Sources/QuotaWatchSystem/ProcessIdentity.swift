import CQuotaWatchShims
import Glibc

package enum ProcessIdentity {
    /// The corresponding C function is `getpid`.
    package static var processID: Int32 { system_getpid() }
    /// The corresponding C function is `geteuid`.
    package static var effectiveUserID: UInt32 { system_geteuid() }
}
