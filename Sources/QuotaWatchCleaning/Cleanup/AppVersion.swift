import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// Where the app's version comes from.
package enum AppVersionSource: Sendable, Hashable {
    /// A version string written in the config.
    case fixed(String)
    /// An `Info.plist` (XML or binary) whose `CFBundleShortVersionString` is the version.
    case infoPlist(path: [UInt8])
}

/// Why the app version could not be read.
package struct AppVersionError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: [UInt8]
    package var reason: String

    package var description: String {
        "cannot read the app version from '\(EscapedName.string(path))': \(reason); "
            + "point app_version at the bundle's Info.plist, or write the version itself"
    }
}

package enum AppVersion {
    /// The version `source` names now.
    package static func read(_ source: AppVersionSource) throws(AppVersionError) -> String {
        switch source {
        case .fixed(let version): return version
        case .infoPlist(let path):
            let bytes: [UInt8]
            do {
                // The config names it: a FIFO or a device there must not block the daemon.
                bytes = try RegularFile.read(bytes: path, limit: 1 << 20)
            } catch {
                throw AppVersionError(path: path, reason: "\(error)")
            }
            guard let version = shortVersion(plist: bytes) else {
                throw AppVersionError(
                    path: path, reason: "no CFBundleShortVersionString string in it (or not a property list)")
            }
            return version
        }
    }

    /// `CFBundleShortVersionString` of an XML or binary property list. Not JSON and not the
    /// contract's: a file the app's installer writes, in a format Foundation reads as untyped
    /// values, of which one string is taken.
    package static func shortVersion(plist bytes: [UInt8]) -> String? {
        guard
            let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil),
            let dictionary = object as? [String: Any],
            let version = dictionary["CFBundleShortVersionString"] as? String,
            !version.isEmpty
        else { return nil }
        return version
    }
}
