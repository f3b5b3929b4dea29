import QuotaWatchCore

/// One file on the storage page: where it is, what it is, what it holds.
public struct CleanItem: Sendable, Hashable {
    /// Relative to ROOT, raw bytes.
    public var path: [UInt8]
    public var classification: CleanClass
    public var device: UInt64
    public var inode: UInt64
    public var linkCount: UInt64
    /// `st_blocks × 512`: what the phone shows and what deleting gives back.
    public var allocatedBytes: UInt64
    public var apparentBytes: UInt64
    /// Last data modification, nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64

    public init(
        path: [UInt8], classification: CleanClass, device: UInt64, inode: UInt64, linkCount: UInt64 = 1,
        allocatedBytes: UInt64, apparentBytes: UInt64, modifiedNanoseconds: Int64
    ) {
        self.path = path
        self.classification = classification
        self.device = device
        self.inode = inode
        self.linkCount = linkCount
        self.allocatedBytes = allocatedBytes
        self.apparentBytes = apparentBytes
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// An item for `path` with `status`, if the path has a category.
    public init?(path: [UInt8], status: FileStatus) {
        guard status.kind != .directory, let classification = CleanClassifier.classify(path) else { return nil }
        self.init(path: path, classification: classification, status: status)
    }

    /// An item for `path`, already classified, with `status`.
    public init(path: [UInt8], classification: CleanClass, status: FileStatus) {
        self.init(
            path: path, classification: classification, device: status.device, inode: status.inode,
            linkCount: status.linkCount, allocatedBytes: status.allocatedBytes, apparentBytes: status.apparentBytes,
            modifiedNanoseconds: status.modifiedNanoseconds)
    }

    public var category: CleanCategory { classification.category }

    /// The rule the audit log names for it: the category, with the kind for user files.
    public var auditRule: String {
        classification.kind.map { "\(category.rawValue):\($0.rawValue)" } ?? category.rawValue
    }

    /// Whole seconds since its last modification, never negative.
    public func ageSeconds(nowNanoseconds: Int64) -> Int64 {
        max(0, Saturating.difference(nowNanoseconds, modifiedNanoseconds) / 1_000_000_000)
    }
}

/// Counts and sizes of a set of items, each inode's blocks once however many of its names
/// are in the set, as du counts a directory.
public struct CleanTotals: Sendable, Hashable {
    public var count = 0
    public var allocatedBytes: UInt64 = 0
    public var apparentBytes: UInt64 = 0

    public init() {}

    public init(_ items: some Sequence<CleanItem>) {
        var seen: Set<[UInt64]> = []
        for item in items {
            count += 1
            if item.linkCount > 1, !seen.insert([item.device, item.inode]).inserted { continue }
            // Sparse files may claim up to 2⁶³ B each: a sum saturates, as du's does.
            allocatedBytes = Saturating.sum(allocatedBytes, item.allocatedBytes)
            apparentBytes = Saturating.sum(apparentBytes, item.apparentBytes)
        }
    }
}

/// Why a listed file will not be deleted, though its category is chosen.
public enum CleanHold: String, Sendable, Hashable {
    /// A download some process still writes: never a leftover.
    case openForWriting = "open_for_writing"
    /// The newest entry of a dyld cache directory: the one in use.
    case newestDyldCache = "newest_dyld_cache"
}

/// The storage page's decisions on a list of items, all pure: what is listed (and what is
/// held back, and why), how it is grouped, and what a selection deletes. The CLI and the
/// daemon call the same functions, so `--dry-run` lists exactly what a real run removes.
public enum CleanPlanner {
    /// Splits `items` into those on offer and those held back: a leftover still open for
    /// writing (`isOpenForWriting`, asked only for leftovers) and the newest entry of each
    /// dyld cache directory (only the stale ones are offered).
    public static func offer(
        _ items: [CleanItem], isOpenForWriting: (CleanItem) -> Bool
    ) -> (offered: [CleanItem], held: [(item: CleanItem, hold: CleanHold)]) {
        // The newest entry per dyld directory, by the latest mtime of its files.
        var newestEntry: [[UInt8]: (group: [UInt8], modified: Int64)] = [:]
        for item in items where item.category == .dyld {
            let group = item.classification.group
            let directory = group.lastIndex(of: UInt8(ascii: "/")).map { Array(group[..<$0]) } ?? []
            if let known = newestEntry[directory],
                known.modified > item.modifiedNanoseconds
                    || (known.modified == item.modifiedNanoseconds && known.group.lexicographicallyPrecedes(group))
            {
                continue
            }
            newestEntry[directory] = (group, item.modifiedNanoseconds)
        }
        let keptEntries = Set(newestEntry.values.map(\.group))
        var offered: [CleanItem] = []
        var held: [(CleanItem, CleanHold)] = []
        for item in items {
            if item.category == .dyld, keptEntries.contains(item.classification.group) {
                held.append((item, .newestDyldCache))
            } else if item.category == .leftovers, isOpenForWriting(item) {
                held.append((item, .openForWriting))
            } else {
                offered.append(item)
            }
        }
        return (offered, held)
    }

    /// What `selection` deletes among the offered items, in listing order.
    public static func select(
        _ offered: [CleanItem], _ selection: CleanSelection, nowNanoseconds: Int64
    ) -> [CleanItem] {
        sortedForListing(offered.filter { selection.selects($0, nowNanoseconds: nowNanoseconds) })
    }

    /// Category order, then group (largest group first), then largest file first, then path.
    public static func sortedForListing(_ items: [CleanItem]) -> [CleanItem] {
        // Each item's group key and its group's size, computed once (not per comparison).
        let keys = items.map(CleanGroupKey.init)
        var groupBytes: [CleanGroupKey: UInt64] = [:]
        for (item, key) in zip(items, keys) { groupBytes[key, default: 0] += item.allocatedBytes }
        let sizes = keys.map { groupBytes[$0]! }
        let order = items.indices.sorted { leftIndex, rightIndex in
            let (left, right) = (items[leftIndex], items[rightIndex])
            if left.category != right.category { return left.category < right.category }
            let (leftKey, rightKey) = (keys[leftIndex], keys[rightIndex])
            if leftKey != rightKey {
                let (leftBytes, rightBytes) = (sizes[leftIndex], sizes[rightIndex])
                if leftBytes != rightBytes { return leftBytes > rightBytes }
                return leftKey.precedes(rightKey)
            }
            if left.allocatedBytes != right.allocatedBytes { return left.allocatedBytes > right.allocatedBytes }
            return left.path.lexicographicallyPrecedes(right.path)
        }
        return order.map { items[$0] }
    }

    /// The page: one entry per category (all of them, empty ones too), each with its groups
    /// (cache businesses, dyld entries, user-file kinds), largest first.
    public static func page(_ offered: [CleanItem]) -> [CleanCategorySummary] {
        let sorted = sortedForListing(offered)
        return CleanCategory.allCases.map { category in
            let items = sorted.filter { $0.category == category }
            var groups: [CleanGroupSummary] = []
            var index: [CleanGroupKey: Int] = [:]
            for item in items where category == .caches || category == .dyld || category == .userFiles {
                let key = CleanGroupKey(item)
                if let at = index[key] {
                    groups[at].items.append(item)
                } else {
                    index[key] = groups.count
                    groups.append(CleanGroupSummary(key: key, items: [item]))
                }
            }
            return CleanCategorySummary(category: category, totals: CleanTotals(items), groups: groups, items: items)
        }
    }
}

/// What a group is keyed by: a cache's directory, or a user-file kind.
public struct CleanGroupKey: Sendable, Hashable {
    public var group: [UInt8]
    public var kind: UserFileKind?

    public init(_ item: CleanItem) {
        group = item.classification.group
        kind = item.classification.kind
    }

    /// The group's short name: the business directory's last component, the kind's name.
    public var name: [UInt8] {
        if let kind { return Array(kind.rawValue.utf8) }
        return group.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? group
    }

    func precedes(_ other: CleanGroupKey) -> Bool {
        if let kind, let otherKind = other.kind, kind != otherKind { return kind < otherKind }
        return group.lexicographicallyPrecedes(other.group)
    }
}

public struct CleanGroupSummary: Sendable, Hashable {
    public var key: CleanGroupKey
    /// Largest first.
    public var items: [CleanItem]
    public var totals: CleanTotals { CleanTotals(items) }
}

public struct CleanCategorySummary: Sendable, Hashable {
    public var category: CleanCategory
    public var totals: CleanTotals
    /// For caches (by business directory), dyld (by entry) and user files (by kind).
    public var groups: [CleanGroupSummary]
    /// Every item, in listing order.
    public var items: [CleanItem]
}
