import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// The app version, and the last one seen, persisted as `app-version` in the state directory.
/// The first start with a version other than the persisted one runs every cleaner once.
package struct AppVersionStore: Sendable {
    package static let fileName = "app-version"
    package let path: [UInt8]

    package init(stateDirectory: [UInt8]) { path = stateDirectory + Array("/\(Self.fileName)".utf8) }

    /// The version persisted by an earlier start; nil if none was.
    package func lastSeen() -> String? {
        guard let bytes = try? RegularFile.read(bytes: path, limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Persists `version` (written to a temporary file, synced and renamed over the old one).
    package func record(_ version: String) throws(Errno) {
        if let slash = path.lastIndex(of: UInt8(ascii: "/")), slash > 0 {
            try DurableFile.makeDirectories(Array(path[..<slash]))
        }
        try DurableFile.replace(path, with: Array((version + "\n").utf8))
    }

    /// The trigger for `current`: `app_version` when it differs from the last one seen, else nil.
    package func trigger(for current: String) -> CleanupTrigger? {
        let last = lastSeen()
        return last == current ? nil : .appVersion(old: last, new: current)
    }
}
