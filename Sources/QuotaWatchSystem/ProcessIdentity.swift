import CQuotaWatchShims
import Glibc

public enum ProcessIdentity {
    /// The corresponding C function is `getpid`.
    public static var processID: Int32 { system_getpid() }
    /// The corresponding C function is `geteuid`.
    public static var effectiveUserID: UInt32 { system_geteuid() }
}
