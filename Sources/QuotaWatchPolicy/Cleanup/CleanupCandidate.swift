import QuotaWatchCore

/// One name a cleaner may remove, as the engine knows it from its live tree: enough to choose
/// and to account without asking the kernel.
package struct CleanupCandidate: Sendable, Hashable {
    /// Relative to ROOT, as raw bytes.
    package var path: [UInt8]
    package var device: UInt64
    package var inode: UInt64
    package var isDirectory: Bool
    /// `st_blocks × 512` of the inode (of the whole subtree for a directory).
    package var allocatedBytes: UInt64
    package var apparentBytes: UInt64
    /// Last data modification, nanoseconds since the epoch.
    package var modifiedNanoseconds: Int64
    /// Last inode change (ctime) and last access (atime), nanoseconds since the epoch: see
    /// ``FileActivity`` for what each may decide.
    package var changedNanoseconds: Int64
    package var accessedNanoseconds: Int64
    /// The last open the engine saw (`IN_OPEN`, for `order: lru` rules), nanoseconds since the
    /// epoch; nil when it saw none.
    package var lastOpenNanoseconds: Int64?
    package var linkCount: UInt64
    /// Every name of this inode inside the directory being cleaned, this one included (one
    /// entry for a file with a single link).
    package var namesInDirectory: [[UInt8]]
    /// The rule that found it (a leftover rule's name, a quota's glob), for the audit log.
    package var rule: String

    package init(
        path: [UInt8], device: UInt64, inode: UInt64, isDirectory: Bool = false, allocatedBytes: UInt64,
        apparentBytes: UInt64, modifiedNanoseconds: Int64, changedNanoseconds: Int64? = nil,
        accessedNanoseconds: Int64? = nil, lastOpenNanoseconds: Int64? = nil, linkCount: UInt64 = 1,
        namesInDirectory: [[UInt8]]? = nil, rule: String = ""
    ) {
        self.rule = rule
        self.path = path
        self.device = device
        self.inode = inode
        self.isDirectory = isDirectory
        self.allocatedBytes = allocatedBytes
        self.apparentBytes = apparentBytes
        self.modifiedNanoseconds = modifiedNanoseconds
        // A caller that knows no ctime or atime (a test's fixture) gets the mtime for them.
        self.changedNanoseconds = changedNanoseconds ?? modifiedNanoseconds
        self.accessedNanoseconds = accessedNanoseconds ?? modifiedNanoseconds
        self.lastOpenNanoseconds = lastOpenNanoseconds
        self.linkCount = linkCount
        self.namesInDirectory = namesInDirectory ?? [path]
    }

    /// When it was last used, for `order: lru`: the latest of its last change (mtime and
    /// ctime, none in the future) and the last open the daemon saw. atime is not in it
    /// (relatime leaves it a day behind); it only breaks ties (``EvictionSelection``).
    package func lastUseNanoseconds(now: Int64) -> Int64 {
        max(lastActivityNanoseconds(now: now), lastOpenNanoseconds ?? .min)
    }

    /// The latest of its mtime and ctime that is not in the future (``FileActivity``).
    package func lastActivityNanoseconds(now: Int64) -> Int64 {
        FileActivity.lastActivity(modified: modifiedNanoseconds, changed: changedNanoseconds, now: now)
    }

    /// Every name of the inode lies inside the directory: removing them all frees the disk too.
    package var allNamesInDirectory: Bool { isDirectory || UInt64(namesInDirectory.count) >= linkCount }

    /// The size `size` counts for this inode.
    package func bytes(_ size: SizeKind) -> UInt64 { size == .allocated ? allocatedBytes : apparentBytes }
}
