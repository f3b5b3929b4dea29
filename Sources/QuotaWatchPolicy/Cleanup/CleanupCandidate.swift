import QuotaWatchCore

/// One name a cleaner may remove, as the engine knows it from its live tree: enough to choose
/// and to account without asking the kernel.
public struct CleanupCandidate: Sendable, Hashable {
    /// Relative to ROOT, as raw bytes.
    public var path: [UInt8]
    public var device: UInt64
    public var inode: UInt64
    public var isDirectory: Bool
    /// `st_blocks × 512` of the inode (of the whole subtree for a directory).
    public var allocatedBytes: UInt64
    public var apparentBytes: UInt64
    /// Last data modification, nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64
    /// The last open the engine saw (`IN_OPEN`, for `order: lru` rules), nanoseconds since the
    /// epoch; nil when it saw none.
    public var lastOpenNanoseconds: Int64?
    public var linkCount: UInt64
    /// Every name of this inode inside the directory being cleaned, this one included (one
    /// entry for a file with a single link).
    public var namesInDirectory: [[UInt8]]
    /// The rule that found it (a leftover rule's name, a quota's glob), for the audit log.
    public var rule: String

    public init(
        path: [UInt8], device: UInt64, inode: UInt64, isDirectory: Bool = false, allocatedBytes: UInt64,
        apparentBytes: UInt64, modifiedNanoseconds: Int64, lastOpenNanoseconds: Int64? = nil, linkCount: UInt64 = 1,
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
        self.lastOpenNanoseconds = lastOpenNanoseconds
        self.linkCount = linkCount
        self.namesInDirectory = namesInDirectory ?? [path]
    }

    /// The latest of its modification and its last open: when it was last used.
    public var lastUseNanoseconds: Int64 { max(modifiedNanoseconds, lastOpenNanoseconds ?? .min) }

    /// Every name of the inode lies inside the directory: removing them all frees the disk too.
    public var allNamesInDirectory: Bool { isDirectory || UInt64(namesInDirectory.count) >= linkCount }

    /// The size `size` counts for this inode.
    public func bytes(_ size: SizeKind) -> UInt64 { size == .allocated ? allocatedBytes : apparentBytes }
}
