/// The categories of `quotawatch clean`, the storage page of an app's data container, by
/// their command-line names and in the order the page lists them.
package enum CleanCategory: String, Sendable, Hashable, CaseIterable, Comparable {
    case leftovers
    case caches
    case tmp
    case dyld
    case inbox
    case webkit
    case plists
    case userFiles = "user-files"

    /// What the page calls it.
    package var title: String {
        switch self {
        case .leftovers: "download leftovers"
        case .caches: "caches"
        case .tmp: "temporary files"
        case .dyld: "stale dyld caches"
        case .inbox: "Documents/Inbox"
        case .webkit: "WebKit cache"
        case .plists: "temporary plists"
        case .userFiles: "your files in Documents"
        }
    }

    /// The names `--category` takes.
    package static var names: [String] { allCases.map(\.rawValue) }

    package static func < (left: CleanCategory, right: CleanCategory) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }
}
