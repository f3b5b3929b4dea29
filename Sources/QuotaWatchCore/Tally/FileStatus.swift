/// What the kernel says about one inode, reduced to what a tally needs.
///
/// A pure value: the system layer fills it from `fstatat`, tests build it by hand.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: UInt8, Sendable {
        case regular, directory, symlink, other
    }

    package var device: UInt64
    package var inode: UInt64
    package var kind: Kind
    package var linkCount: UInt64
    /// `st_size`: what `du -b` adds up.
    package var apparentBytes: UInt64
    /// `st_blocks × 512`: what `du -B1` adds up, and what a phone's storage screen shows.
    package var allocatedBytes: UInt64
    /// Last data modification, in nanoseconds since the epoch.
    package var modifiedNanoseconds: Int64
    /// Last change of the inode (`st_ctime`), in nanoseconds since the epoch. Unlike the mtime
    /// no program can set it back (tar, cp -a and rsync do set the mtime), and every write and
    /// rename moves it on: what tells whether writeback may still change the allocation.
    package var changedNanoseconds: Int64
    /// Last access (`st_atime`), in nanoseconds since the epoch: with relatime only a hint, so
    /// it breaks ties between files the daemon saw used at the same moment, and weighs as one
    /// of the times `expire` takes the newest of, as systemd-tmpfiles does.
    package var accessedNanoseconds: Int64

    package init(
        device: UInt64, inode: UInt64, kind: Kind, linkCount: UInt64,
        apparentBytes: UInt64, allocatedBytes: UInt64, modifiedNanoseconds: Int64 = 0, changedNanoseconds: Int64 = 0,
        accessedNanoseconds: Int64 = 0
    ) {
        self.device = device
        self.inode = inode
        self.kind = kind
        self.linkCount = linkCount
        self.apparentBytes = apparentBytes
        self.allocatedBytes = allocatedBytes
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
        self.accessedNanoseconds = accessedNanoseconds
    }

    /// du counts an inode once per subtree only when it may have other names;
    /// directories are never hard-linked.
    package var mayHaveOtherNames: Bool { kind != .directory && linkCount > 1 }

    package var usage: Usage { Usage(allocated: allocatedBytes, apparent: apparentBytes) }
}

/// The two sizes du knows, for one inode or summed over many.
package struct Usage: Sendable, Equatable, Hashable {
    package var allocated: UInt64
    package var apparent: UInt64

    package static let zero = Usage(allocated: 0, apparent: 0)

    package init(allocated: UInt64, apparent: UInt64) {
        self.allocated = allocated
        self.apparent = apparent
    }
}

/// Subtree totals of one directory: its own inode, every inode below it once, and name counts.
package struct Tally: Sendable, Equatable {
    package var usage: Usage
    /// Non-directory names in the subtree; each hard-link name counts.
    package var files: UInt64
    /// Directories below this one, not counting itself.
    package var dirs: UInt64

    package static let zero = Tally(usage: .zero, files: 0, dirs: 0)

    package init(usage: Usage, files: UInt64, dirs: UInt64) {
        self.usage = usage
        self.files = files
        self.dirs = dirs
    }

    package var allocated: UInt64 { usage.allocated }
    package var apparent: UInt64 { usage.apparent }
}
