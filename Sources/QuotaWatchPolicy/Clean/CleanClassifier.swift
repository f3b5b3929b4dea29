/// Where one file belongs on the storage page.
package struct CleanClass: Sendable, Hashable {
    package var category: CleanCategory
    /// What it is listed under within its category: the business directory for `caches`
    /// (`Library/Caches/com.example.feed`), the cache entry for `dyld`
    /// (`tmp/com.apple.dyld/X`), empty for the others.
    package var group: [UInt8]
    /// For `user-files` only.
    package var kind: UserFileKind?

    package init(_ category: CleanCategory, group: [UInt8] = [], kind: UserFileKind? = nil) {
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
package enum CleanClassifier {
    package static func classify(_ path: some Collection<UInt8>) -> CleanClass? {
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
    package static let topDirectories = ["tmp", "Library/Caches", "Library/Preferences", "Documents"]

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
