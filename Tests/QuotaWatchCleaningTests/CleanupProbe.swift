import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchTestSupport

/// The `quotawatch-cleanup-probe` program SwiftPM built next to the test bundle.
enum CleanupProbe {
    static func path() throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("quotawatch-cleanup-probe").path
            if access(candidate, X_OK) == 0 { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw TestFailure(message: "no quotawatch-cleanup-probe next to \(executable)")
    }

    /// Why a private mount namespace with a tmpfs cannot be had here, or nil when it can.
    static let mountNamespaceUnavailable: String? = {
        guard
            let result = try? ProcessRunner.run(
                "unshare",
                ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"].map { Array($0.utf8) })
        else { return "unshare (util-linux) is not installed" }
        guard result.exitStatus == 0 else {
            return "'unshare -m' with a tmpfs mount is not permitted here: \(result.errorText)"
        }
        return nil
    }()

    /// Audit records of a log file, torn lines skipped.
    static func records(_ path: String) -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
    }
}
