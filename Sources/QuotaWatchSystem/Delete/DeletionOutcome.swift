import QuotaWatchCore

/// Which inode a name leads to: what a cleaner chose, and what the deleter checks again
/// just before removing the name.
package struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    package var device: UInt64
    package var inode: UInt64
    /// The ctime the file had when it was chosen, when the choice depended on the file being
    /// idle (a leftover, an expired file): a file changed since (written, renamed, linked) is
    /// kept, so a writer that wakes up between the choice and the unlink never loses its file.
    /// Not part of the identity: two identities of one inode are equal.
    package var unchangedSince: Int64?

    package init(device: UInt64, inode: UInt64, unchangedSince: Int64? = nil) {
        self.device = device
        self.inode = inode
        self.unchangedSince = unchangedSince
    }

    package init(_ status: FileStatus) { self.init(device: status.device, inode: status.inode) }

    package static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
    }

    package var description: String { "device \(device) inode \(inode)" }

    /// Why `status`, the file at the chosen name now, must be kept though it is the inode chosen.
    func changeSinceChosen(_ status: FileStatus) -> SkipReason? {
        guard let unchangedSince, status.kind != .directory, status.changedNanoseconds > unchangedSince else {
            return nil
        }
        return .changedSinceChosen
    }
}

/// One name the deleter removed (or, in a dry run, would remove).
package struct DeletionEntry: Sendable, Equatable {
    /// Relative to ROOT, as raw bytes.
    package var path: [UInt8]
    package var identity: FileIdentity
    package var kind: FileStatus.Kind
    /// The inode's allocated bytes (`st_blocks × 512`) when it was checked.
    package var allocatedBytes: UInt64
    package var linkCount: UInt64

    package init(
        path: [UInt8], identity: FileIdentity, kind: FileStatus.Kind, allocatedBytes: UInt64, linkCount: UInt64
    ) {
        self.path = path
        self.identity = identity
        self.kind = kind
        self.allocatedBytes = allocatedBytes
        self.linkCount = linkCount
    }
}

/// A name inside a directory tree that was kept, and why.
package struct KeptEntry: Sendable, Equatable {
    package var path: [UInt8]
    package var reason: SkipReason

    package init(path: [UInt8], reason: SkipReason) {
        self.path = path
        self.reason = reason
    }
}

/// What one call removed: every name, bottom-up, and the bytes the file system got back.
package struct Removal: Sendable, Equatable {
    package var entries: [DeletionEntry] = []
    /// Allocated bytes of the inodes whose last name went (a hard-linked inode frees its
    /// blocks only with its last name; directories always free theirs).
    package var freedBytes: UInt64 = 0
    /// Names inside a directory tree that were left, with the reason.
    package var kept: [KeptEntry] = []
    /// Nothing was removed: this is what a real run would have removed.
    package var dryRun: Bool

    package init(dryRun: Bool) { self.dryRun = dryRun }
}

/// The outcome of ``Deleter/remove(_:expecting:journal:)``.
package enum DeletionOutcome: Sendable, Equatable {
    case removed(Removal)
    case skipped(SkipReason)
    case failed(Errno)
    /// The intent could not be recorded, so nothing (more) was removed.
    case notRecorded(DeletionJournalError)
}
