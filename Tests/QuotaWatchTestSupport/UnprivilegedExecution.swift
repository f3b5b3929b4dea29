import Foundation
import Glibc

/// Whether this process can run children as ``UserIdentity/nobody``, which
/// the tests of unreadable directories need: root can read everything.
public enum UnprivilegedExecution {
    /// Why children cannot run as nobody here, or nil when they can.
    public static let unavailableReason: String? = probe()

    public static var isAvailable: Bool { unavailableReason == nil }

    private static func probe() -> String? {
        guard geteuid() == 0 else {
            return "not running as root (euid \(geteuid())), so cannot switch to an unprivileged user"
        }
        guard ProcessRunner.setprivPath != nil else {
            return "setpriv (util-linux) is not installed"
        }
        // The temp trees live below $TMPDIR; nobody must be able to reach them.
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        do {
            let result = try ProcessRunner.run(
                "/bin/sh",
                ["-c", "test \"$(id -u)\" = \(UserIdentity.nobody.uid) && cd \"$1\"", "sh", base],
                as: .nobody
            )
            guard result.exitStatus == 0 else {
                return "could not run as \(UserIdentity.nobody) with access to \(base): \(result.errorText)"
            }
        } catch {
            return "could not run setpriv: \(error)"
        }
        return nil
    }
}
