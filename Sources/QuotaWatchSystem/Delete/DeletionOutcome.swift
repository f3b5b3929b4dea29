import QuotaWatchCore

/// Which inode a name leads to: what a cleaner chose, and what the deleter checks again
/// just before removing the name.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    /// The ctime the file had when it was chosen, when the choice depended on the file being
    /// idle (a leftover, an expired file): a file changed since (written, renamed, linked) is
    /// kept, so a writer that wakes up between the choice and the unlink never loses its file.
    /// Not part of the identity: two identities of one inode are equal.
    public var unchangedSince: Int64?

    public init(device: UInt64, inode: UInt64, unchangedSince: Int64? = nil) {
        self.device = device
        self.inode = inode
        self.unchangedSince = unchangedSince
    }

    public init(_ status: FileStatus) { self.init(device: status.device, inode: status.inode) }

    public static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
    }

    public var description: String { "device \(device) inode \(inode)" }

    /// Why `status`, the file at the chosen name now, must be kept though it is the inode chosen.
    func changeSinceChosen(_ status: FileStatus) -> SkipReason? {
        guard let unchangedSince, status.kind != .directory, status.changedNanoseconds > unchangedSince else {
            return nil
        }
        return .changedSinceChosen
    }
}

/// One name the deleter removed (or, in a dry run, would remove).
public struct DeletionEntry: Sendable, Equatable {
    /// Relative to ROOT, as raw bytes.
    public var path: [UInt8]
    public var identity: FileIdentity
    public var kind: FileStatus.Kind
    /// The inode's allocated bytes (`st_blocks × 512`) when it was checked.
    public var allocatedBytes: UInt64
    public var linkCount: UInt64

    public init(path: [UInt8], identity: FileIdentity, kind: FileStatus.Kind, allocatedBytes: UInt64, linkCount: UInt64)
    {
        self.path = path
        self.identity = identity
        self.kind = kind
        self.allocatedBytes = allocatedBytes
        self.linkCount = linkCount
    }
}

/// A name inside a directory tree that was kept, and why.
public struct KeptEntry: Sendable, Equatable {
    public var path: [UInt8]
    public var reason: SkipReason

    public init(path: [UInt8], reason: SkipReason) {
        self.path = path
        self.reason = reason
    }
}

/// What one call removed: every name, bottom-up, and the bytes the file system got back.
public struct Removal: Sendable, Equatable {
    public var entries: [DeletionEntry] = []
    /// Allocated bytes of the inodes whose last name went (a hard-linked inode frees its
    /// blocks only with its last name; directories always free theirs).
    public var freedBytes: UInt64 = 0
    /// Names inside a directory tree that were left, with the reason.
    public var kept: [KeptEntry] = []
    /// Nothing was removed: this is what a real run would have removed.
    public var dryRun: Bool

    public init(dryRun: Bool) { self.dryRun = dryRun }
}

/// The outcome of ``Deleter/remove(_:expecting:journal:)``.
public enum DeletionOutcome: Sendable, Equatable {
    case removed(Removal)
    case skipped(SkipReason)
    case failed(Errno)
    /// The intent could not be recorded, so nothing (more) was removed.
    case notRecorded(DeletionJournalError)
}
