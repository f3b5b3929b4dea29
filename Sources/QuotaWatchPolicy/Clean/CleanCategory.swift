/// The categories of `quotawatch clean`, the storage page of an app's data container, by
/// their command-line names and in the order the page lists them.
public enum CleanCategory: String, Sendable, Hashable, CaseIterable, Comparable {
    case leftovers
    case caches
    case tmp
    case dyld
    case inbox
    case webkit
    case plists
    case userFiles = "user-files"

    /// What the page calls it.
    public var title: String {
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
    public static var names: [String] { allCases.map(\.rawValue) }

    public static func < (left: CleanCategory, right: CleanCategory) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }
}

/// The kinds of the user's own files under `Documents/`, by extension.
public enum UserFileKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case video
    case images
    case packages
    case pdf
    case office
    case archives
    /// Anything else under `Documents/` (notes, audio, databases): listed, deleted only by name.
    case other

    public static var names: [String] { allCases.map(\.rawValue) }

    /// Lowercased ASCII extensions of each kind.
    static let extensions: [UserFileKind: Set<String>] = [
        .video: ["mp4", "m4v", "mov", "avi", "mkv", "webm", "3gp", "mpg", "mpeg", "wmv", "flv"],
        .images: ["jpg", "jpeg", "png", "heic", "heif", "gif", "webp", "tif", "tiff", "bmp", "dng", "raw", "svg"],
        .packages: ["ipa", "apk", "aab", "dmg", "deb", "rpm", "pkg", "msi"],
        .pdf: ["pdf"],
        .office: [
            "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "pages", "numbers", "key",
        ],
        .archives: ["zip", "rar", "7z", "tar", "gz", "tgz", "bz2", "xz", "zst"],
    ]

    /// The kind of a file named `name` (raw bytes): its extension after the last dot, ASCII
    /// letters folded to lower case; a name that is not UTF-8 still has an extension.
    public static func of(name: some Collection<UInt8>) -> UserFileKind {
        let bytes = Array(name)
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot < bytes.count - 1 else { return .other }
        let lowered = bytes[(dot + 1)...].map { $0 >= 0x41 && $0 <= 0x5a ? $0 | 0x20 : $0 }
        let text = String(decoding: lowered, as: UTF8.self)
        for kind in allCases where extensions[kind]?.contains(text) == true { return kind }
        return .other
    }

    public static func < (left: UserFileKind, right: UserFileKind) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }
}

/// Where one file belongs on the storage page.
public struct CleanClass: Sendable, Hashable {
    public var category: CleanCategory
    /// What it is listed under within its category: the business directory for `caches`
    /// (`Library/Caches/com.example.feed`), the cache entry for `dyld`
    /// (`tmp/com.apple.dyld/X`), empty for the others.
    public var group: [UInt8]
    /// For `user-files` only.
    public var kind: UserFileKind?

    public init(_ category: CleanCategory, group: [UInt8] = [], kind: UserFileKind? = nil) {
        self.category = category
        self.group = group
        self.kind = kind
    }
}

/// Sorts a file of an iOS app's data container (a path relative to ROOT, raw bytes) into its
/// category, from the path alone. Pure: the same answer for the daemon's live tree and for a
/// crawl of the CLI.
///
/// - `leftovers`: `tmp/CFNetworkDownload_*.tmp` and
///   `Library/Caches/com.apple.nsurlsessiond/Downloads/*/CFNetworkDownload_*.tmp`, NSURLSession's
///   partial downloads (the `cfnetwork-download` rule of the `ios-sandbox` profile);
/// - `dyld`: below `tmp/com.apple.dyld/` or `Library/Caches/com.apple.dyld/`, grouped by entry;
/// - `tmp`: everything else below `tmp/`;
/// - `webkit`: below `Library/Caches/WebKit/` or `Library/Caches/<bundle>/WebKit/`;
/// - `caches`: everything else below `Library/Caches/`, grouped by its first directory there;
/// - `plists`: `Library/Preferences/<name>.plist.<suffix>` (cfprefsd's atomic save goes through
///   `<name>.plist.XXXXXXX` and a lock `<name>.plist.lockfile`; an interrupted save leaves
///   them behind) and `Library/Preferences/.dat.nosync*` (Foundation's atomic-write
///   temporaries). `<name>.plist` itself never matches;
/// - `inbox`: below `Documents/Inbox/`;
/// - `user-files`: everything else below `Documents/`, with its ``UserFileKind``.
///
/// Anything else (`Library/Application Support`, the plists themselves, cookies, files at
/// ROOT) has no category: `clean` neither lists nor deletes it.
public enum CleanClassifier {
    public static func classify(_ path: some Collection<UInt8>) -> CleanClass? {
        let components = Array(path).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard components.count >= 2, !components.contains(where: \.isEmpty) else { return nil }
        let name = components[components.count - 1]
        switch String(decoding: components[0], as: UTF8.self) {
        case "tmp":
            if components.count == 2 && isDownload(name) { return CleanClass(.leftovers) }
            if components[1].elementsEqual("com.apple.dyld".utf8) {
                return components.count >= 3 ? CleanClass(.dyld, group: join(components.prefix(3))) : nil
            }
            return CleanClass(.tmp)
        case "Library":
            if components[1].elementsEqual("Caches".utf8) { return classifyCache(components) }
            if components[1].elementsEqual("Preferences".utf8), components.count == 3, isTemporaryPlist(name) {
                return CleanClass(.plists)
            }
            return nil
        case "Documents":
            if components[1].elementsEqual("Inbox".utf8) { return components.count >= 3 ? CleanClass(.inbox) : nil }
            return CleanClass(.userFiles, kind: UserFileKind.of(name: name))
        default:
            return nil
        }
    }

    /// Which top-level directories can hold a classified file: a walk needs only these.
    public static let topDirectories = ["tmp", "Library/Caches", "Library/Preferences", "Documents"]

    private static func classifyCache(_ components: [ArraySlice<UInt8>]) -> CleanClass? {
        guard components.count >= 3 else { return nil }
        if components.count == 3 { return CleanClass(.caches, group: Array("Library/Caches".utf8)) }
        let business = components[2]
        if business.elementsEqual("WebKit".utf8) { return CleanClass(.webkit) }
        if components.count >= 5, components[3].elementsEqual("WebKit".utf8) { return CleanClass(.webkit) }
        if business.elementsEqual("com.apple.dyld".utf8) {
            return CleanClass(.dyld, group: join(components.prefix(4)))
        }
        if business.elementsEqual("com.apple.nsurlsessiond".utf8), components.count == 6,
            components[3].elementsEqual("Downloads".utf8), isDownload(components[5])
        {
            return CleanClass(.leftovers)
        }
        return CleanClass(.caches, group: join(components.prefix(3)))
    }

    /// `CFNetworkDownload_*.tmp`.
    static func isDownload(_ name: ArraySlice<UInt8>) -> Bool {
        let prefix = Array("CFNetworkDownload_".utf8)
        let suffix = Array(".tmp".utf8)
        return name.count > prefix.count + suffix.count - 1 && name.starts(with: prefix)
            && name.suffix(suffix.count).elementsEqual(suffix)
    }

    /// `*.plist.?*` or `.dat.nosync*`.
    static func isTemporaryPlist(_ name: ArraySlice<UInt8>) -> Bool {
        if name.starts(with: ".dat.nosync".utf8) { return true }
        let marker = Array(".plist.".utf8)
        guard name.count > marker.count else { return false }
        let bytes = Array(name)
        for start in 1...(bytes.count - marker.count) where bytes[start..<start + marker.count].elementsEqual(marker) {
            if start + marker.count < bytes.count { return true }
        }
        return false
    }

    private static func join(_ components: some Collection<ArraySlice<UInt8>>) -> [UInt8] {
        Array(components.joined(separator: [UInt8(ascii: "/")]))
    }
}

/// Classifies the files of one directory: what depends on the directory alone is worked out
/// once, so a directory of thousands of cache files costs one classification, not one each.
/// Always the same answer as ``CleanClassifier/classify(_:)`` of the file's path.
public struct CleanFileClassifier: Sendable {
    private let directory: [UInt8]
    /// Every file here gets this class (or none), whatever its name.
    private let shared: CleanClass?
    private let nameMatters: Bool

    /// For the directory at `directory` (relative to ROOT; empty for ROOT).
    public init(directory: [UInt8]) {
        self.directory = directory
        nameMatters = Self.nameMatters(directory)
        shared = nameMatters ? nil : CleanClassifier.classify(Self.join(directory, Array("x".utf8)))
    }

    /// Whether no file here can have a category: the walk may skip its files.
    public var classifiesNothing: Bool { !nameMatters && shared == nil }

    public func classify(name: some Collection<UInt8>) -> CleanClass? {
        nameMatters ? CleanClassifier.classify(Self.join(directory, name)) : shared
    }

    /// The directories where a file's name decides its category or group: downloads in `tmp`
    /// and in nsurlsessiond's download folders, dyld entries, temporary plists, and the
    /// kinds of the user's files.
    static func nameMatters(_ directory: [UInt8]) -> Bool {
        let components = directory.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        switch components.count {
        case 1 where components[0] == "tmp": return true
        case 2 where components == ["tmp", "com.apple.dyld"] || components == ["Library", "Preferences"]: return true
        case 3 where components == ["Library", "Caches", "com.apple.dyld"]: return true
        case 5 where Array(components.prefix(4)) == ["Library", "Caches", "com.apple.nsurlsessiond", "Downloads"]:
            return true
        default:
            return components.first == "Documents" && !(components.count >= 2 && components[1] == "Inbox")
        }
    }

    private static func join(_ directory: [UInt8], _ name: some Collection<UInt8>) -> [UInt8] {
        directory.isEmpty ? Array(name) : directory + [UInt8(ascii: "/")] + name
    }
}
