import CQuotaWatchShims
import Glibc

/// A function run when the process exits through `exit` (a return from main included).
package enum TerminalExitHook {
    /// The corresponding C function is `atexit`.
    package static func install(_ body: @convention(c) () -> Void) {
        _ = atexit(body)
    }
}
