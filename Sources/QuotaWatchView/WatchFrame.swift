import QuotaWatchCore

/// What the view shows of the engine at one moment: the current directory's children,
/// largest first, the quotas, the disk level and the counters. Built on the engine thread
/// (in-process) or from control replies (attached), at a cost of what is on screen, never of
/// the tree.
package struct WatchFrame: Sendable, Equatable {
    /// One name directly in the current directory: a subdirectory (its subtree's totals) or a
    /// file (its own sizes; `files` 1, `dirs` 0), listed together as ncdu and gdu do.
    package struct Entry: Sendable, Equatable {
        package var name: [UInt8]
        package var allocated: UInt64
        package var apparent: UInt64
        package var files: UInt64
        package var dirs: UInt64
        /// False for a file (any non-directory), which the view shows but does not open.
        package var isDirectory: Bool

        package init(
            name: [UInt8], allocated: UInt64, apparent: UInt64, files: UInt64, dirs: UInt64, isDirectory: Bool = true
        ) {
            self.name = name
            self.allocated = allocated
            self.apparent = apparent
            self.files = files
            self.dirs = dirs
            self.isDirectory = isDirectory
        }
    }

    /// The root, absolute and escaped.
    package var root: String
    /// The directory `entries` belong to, raw bytes relative to the root; empty for the root.
    package var directory: [UInt8]
    /// False when `directory` is no longer in the tree (deleted or moved away).
    package var directoryExists = true
    /// Names directly in `directory` left out of `entries` (the smallest, past the most a
    /// frame carries): the list says "… N more" instead of hiding them.
    package var omittedEntries = 0
    /// Directories the engine cannot read: the totals above them are short.
    package var unreadable = 0
    package var rootAllocated: UInt64 = 0
    package var rootApparent: UInt64 = 0
    package var rootFiles: UInt64 = 0
    package var rootDirs: UInt64 = 0
    /// The app's size as the phone shows it (`watch --ios`); nil when not asked for.
    package var phone: PhoneStorage?
    /// The largest names directly in `directory`, subdirectories and files together, largest
    /// allocated first.
    package var entries: [Entry] = []
    /// Every quota directory and rule, as `status --quotas` reports it; empty without quotas.
    package var quotas: [QuotaStatus.Row] = []
    /// The disk level; nil before the policy starts.
    package var level: DiskLevel?
    package var free: UInt64?
    package var diskTotal: UInt64?
    /// inotify events read since the engine started.
    package var events: UInt64 = 0
    package var overflows: UInt64 = 0
    /// Subtrees polled because they could not be watched.
    package var degraded = 0
    package var isResyncing = false
    /// Directories and files counted so far while the first crawl runs; nil once it is done.
    package var crawl: (directories: Int, files: Int)?
    /// A monotonic clock's reading in seconds, for rates between frames.
    package var seconds: Double = 0

    package init(root: String, directory: [UInt8]) {
        self.root = root
        self.directory = directory
    }

    package static func == (lhs: WatchFrame, rhs: WatchFrame) -> Bool {
        lhs.root == rhs.root && lhs.directory == rhs.directory && lhs.directoryExists == rhs.directoryExists
            && lhs.rootAllocated == rhs.rootAllocated && lhs.rootApparent == rhs.rootApparent
            && lhs.rootFiles == rhs.rootFiles && lhs.rootDirs == rhs.rootDirs && lhs.entries == rhs.entries
            && lhs.quotas == rhs.quotas && lhs.level == rhs.level && lhs.free == rhs.free
            && lhs.diskTotal == rhs.diskTotal && lhs.events == rhs.events && lhs.overflows == rhs.overflows
            && lhs.degraded == rhs.degraded && lhs.isResyncing == rhs.isResyncing
            && lhs.crawl?.directories == rhs.crawl?.directories && lhs.crawl?.files == rhs.crawl?.files
            && lhs.seconds == rhs.seconds
    }

    /// The path of a child of `directory`, raw.
    package func childPath(_ name: [UInt8]) -> [UInt8] {
        directory.isEmpty ? name : directory + [UInt8(ascii: "/")] + name
    }
}

extension QuotaStatus.Row {
    /// Whether this rule's state is more urgent than `other`'s: breach before warning before
    /// ok, then the larger share of its limit in use.
    func isStricter(than other: QuotaStatus.Row) -> Bool {
        func rank(_ state: QuotaState) -> Int {
            switch state {
            case .breach: 2
            case .warning: 1
            case .ok: 0
            }
        }
        if rank(state) != rank(other.state) { return rank(state) > rank(other.state) }
        return share > other.share
    }

    /// Used bytes as a share of the effective limit (0 when unknown; ∞ past a zero limit).
    var share: Double {
        guard let used else { return 0 }
        return effectiveLimit == 0 ? (used == 0 ? 0 : .infinity) : Double(used) / Double(effectiveLimit)
    }
}
