/// Which iOS release's storage screen to imitate. iOS 16 and earlier leave an app's
/// `Library/Caches` out of its "Documents & Data"; iOS 17 counts it.
package struct IOSVersion: Sendable, Equatable, CustomStringConvertible {
    package let major: Int

    /// iOS 17: the current rule, and the default.
    package static let standard = IOSVersion(major: 17)

    package init(major: Int) { self.major = major }

    /// Whether `Library/Caches` is part of "Documents & Data".
    package var countsCaches: Bool { major >= 17 }

    package var description: String { "iOS \(major)" }

    /// A major version as the command line gives it: a whole number such as 16 or 17.
    package static func parse(_ text: String) -> IOSVersion? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let major = Int(text),
            (2...99).contains(major)
        else { return nil }
        return IOSVersion(major: major)
    }
}

/// An app's storage as an iPhone's Settings › General › iPhone Storage shows it, next to the
/// raw total: allocated bytes (what the blocks take, not file sizes), "Documents & Data" (the
/// sandbox, with or without `Library/Caches` by version), and the app bundle.
///
/// Pure: computed from directory totals a scan, a daemon or the `watch` view already has.
package struct PhoneStorage: Sendable, Equatable, Encodable {
    /// The sandbox's directory whose counting changed with iOS 17.
    package static let cachesPath = "Library/Caches"

    package var version: IOSVersion
    /// The sandbox root's allocated bytes: `du -sB1 ROOT`.
    package var rawAllocated: UInt64
    /// The sandbox root's apparent bytes: `du -sb ROOT`.
    package var rawApparent: UInt64
    /// `Library/Caches`'s allocated bytes; 0 when there is none.
    package var cachesAllocated: UInt64
    /// The sandbox as the version counts it.
    package var documentsAndData: UInt64
    /// The bundle's allocated bytes, when one was measured.
    package var appAllocated: UInt64?

    /// "Documents & Data" plus the bundle: the figure the phone shows for the app (at most
    /// `UInt64.max`, where du's totals stop too).
    package var total: UInt64 { Saturating.sum(documentsAndData, appAllocated ?? 0) }

    /// - Parameters:
    ///   - cachesAllocated: `Library/Caches`'s allocated bytes, nil when it does not exist.
    ///     Subtracted from the root as it is: a file hard-linked both inside and outside the
    ///     caches is then left out once too, where the phone would keep it.
    package init(
        version: IOSVersion, rawAllocated: UInt64, rawApparent: UInt64, cachesAllocated: UInt64?,
        appAllocated: UInt64?
    ) {
        self.version = version
        self.rawAllocated = rawAllocated
        self.rawApparent = rawApparent
        self.cachesAllocated = cachesAllocated ?? 0
        self.appAllocated = appAllocated
        documentsAndData = version.countsCaches ? rawAllocated : rawAllocated - min(self.cachesAllocated, rawAllocated)
    }

    /// From a report's rows: the root's (`.`) and `Library/Caches`'s, if listed. Nil when the
    /// root is not among them.
    package init?(version: IOSVersion, directories: [DirectoryReport], appAllocated: UInt64?) {
        guard let root = directories.first(where: { $0.path == "." }) else { return nil }
        let caches = directories.first { $0.path == Self.cachesPath }
        self.init(
            version: version, rawAllocated: root.allocated, rawApparent: root.apparent,
            cachesAllocated: caches?.allocated, appAllocated: appAllocated)
    }

    /// Lines under a table: the phone's figure in decimal units, whatever `format` the table
    /// uses, and the raw totals in `format`.
    package func lines(rawFormat format: ByteFormat) -> [String] {
        let decimal = ByteFormat.decimal
        var parts = ["Documents & Data \(decimal.string(documentsAndData))"]
        if let appAllocated { parts.insert("App \(decimal.string(appAllocated))", at: 0) }
        let caches =
            version.countsCaches
            ? "\(Self.cachesPath) counted: \(decimal.string(cachesAllocated))"
            : "\(Self.cachesPath) left out: \(decimal.string(cachesAllocated))"
        return [
            "\(version.description): \(decimal.string(total)) (\(parts.joined(separator: " + ")); \(caches))",
            "raw: \(format.string(rawAllocated)) allocated, \(format.string(rawApparent)) apparent",
        ]
    }

    enum CodingKeys: String, CodingKey {
        case version
        case cachesAllocated = "caches_allocated"
        case cachesCounted = "caches_counted"
        case documentsAndData = "documents_and_data"
        case appAllocated = "app_allocated"
        case total
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version.major, forKey: .version)
        try container.encode(cachesAllocated, forKey: .cachesAllocated)
        try container.encode(version.countsCaches, forKey: .cachesCounted)
        try container.encode(documentsAndData, forKey: .documentsAndData)
        try container.encode(appAllocated, forKey: .appAllocated)
        try container.encode(total, forKey: .total)
    }
}

extension TallyTree {
    /// The phone's figures for this tree as a sandbox (for `scan` and the `watch` view): its
    /// root and its `Library/Caches`. O(depth of Library/Caches).
    package func phoneStorage(version: IOSVersion, appAllocated: UInt64?) -> PhoneStorage {
        let total = tally(of: root)
        let caches = rows(TreeSelection(subtree: Array(PhoneStorage.cachesPath.utf8), depth: 0))?.first
        return PhoneStorage(
            version: version, rawAllocated: total.allocated, rawApparent: total.apparent,
            cachesAllocated: caches?.tally.allocated, appAllocated: appAllocated)
    }
}
