import QuotaWatchCore

/// One file on the storage page: where it is, what it is, what it holds.
package struct CleanItem: Sendable, Hashable {
    /// Relative to ROOT, raw bytes.
    package var path: [UInt8]
    package var classification: CleanClass
    package var device: UInt64
    package var inode: UInt64
    package var linkCount: UInt64
    /// `st_blocks × 512`: what the phone shows and what deleting gives back.
    package var allocatedBytes: UInt64
    package var apparentBytes: UInt64
    /// Last data modification, nanoseconds since the epoch.
    package var modifiedNanoseconds: Int64

    package init(
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
    package init?(path: [UInt8], status: FileStatus) {
        guard status.kind != .directory, let classification = CleanClassifier.classify(path) else { return nil }
        self.init(path: path, classification: classification, status: status)
    }

    /// An item for `path`, already classified, with `status`.
    package init(path: [UInt8], classification: CleanClass, status: FileStatus) {
        self.init(
            path: path, classification: classification, device: status.device, inode: status.inode,
            linkCount: status.linkCount, allocatedBytes: status.allocatedBytes, apparentBytes: status.apparentBytes,
            modifiedNanoseconds: status.modifiedNanoseconds)
    }

    package var category: CleanCategory { classification.category }

    /// The rule the audit log names for it: the category, with the kind for user files.
    package var auditRule: String {
        classification.kind.map { "\(category.rawValue):\($0.rawValue)" } ?? category.rawValue
    }

    /// Whole seconds since its last modification, never negative.
    package func ageSeconds(nowNanoseconds: Int64) -> Int64 {
        max(0, Saturating.difference(nowNanoseconds, modifiedNanoseconds) / 1_000_000_000)
    }
}

/// Counts and sizes of a set of items, each inode's blocks once however many of its names
/// are in the set, as du counts a directory.
package struct CleanTotals: Sendable, Hashable {
    package var count = 0
    package var allocatedBytes: UInt64 = 0
    package var apparentBytes: UInt64 = 0

    package init() {}

    package init(_ items: some Sequence<CleanItem>) {
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
package enum CleanHold: String, Sendable, Hashable {
    /// A download some process still writes: never a leftover.
    case openForWriting = "open_for_writing"
    /// The newest entry of a dyld cache directory: the one in use.
    case newestDyldCache = "newest_dyld_cache"
}
