/// fanotify event bits, with the kernel's values (part of the Linux ABI, see fanotify(7)), so
/// event logic can be written and tested without the kernel headers.
public struct FanotifyMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let modify = FanotifyMask(rawValue: 0x0000_0002)
    /// Asked only on the directories `order: lru` cleans, by an inode mark of each
    /// (``opensOfChildren``), never on the file system: every open on it would come.
    public static let open = FanotifyMask(rawValue: 0x0000_0020)
    /// On an inode mark of a directory: the events of the entries in it, too.
    public static let eventOnChild = FanotifyMask(rawValue: 0x0800_0000)
    public static let attrib = FanotifyMask(rawValue: 0x0000_0004)
    public static let closeWrite = FanotifyMask(rawValue: 0x0000_0008)
    public static let movedFrom = FanotifyMask(rawValue: 0x0000_0040)
    public static let movedTo = FanotifyMask(rawValue: 0x0000_0080)
    public static let create = FanotifyMask(rawValue: 0x0000_0100)
    public static let delete = FanotifyMask(rawValue: 0x0000_0200)
    public static let deleteSelf = FanotifyMask(rawValue: 0x0000_0400)
    public static let moveSelf = FanotifyMask(rawValue: 0x0000_0800)
    public static let queueOverflow = FanotifyMask(rawValue: 0x0000_4000)
    public static let rename = FanotifyMask(rawValue: 0x1000_0000)
    public static let onDirectory = FanotifyMask(rawValue: 0x4000_0000)

    /// What QuotaWatch marks on a file system: inotify's `quotaWatch` set, with one `rename`
    /// event (both names in one record) instead of the `moved_from`/`moved_to` pair, which
    /// fanotify reports without a cookie to pair them by. Never open or access: the engine's
    /// own crawls and stats would echo back.
    public static let quotaWatch: FanotifyMask = [
        .create, .delete, .rename, .modify, .closeWrite, .attrib, .deleteSelf, .moveSelf, .onDirectory,
    ]

    /// The inode mark of a directory whose files' opens `order: lru` needs.
    public static let opensOfChildren: FanotifyMask = [.open, .eventOnChild]
}

/// `fanotify_init` flags QuotaWatch uses (fanotify(2)).
public enum FanotifyInitFlag {
    public static let closeOnExec: UInt32 = 0x0000_0001
    public static let nonBlocking: UInt32 = 0x0000_0002
    public static let notificationClass: UInt32 = 0x0000_0000
    public static let unlimitedQueue: UInt32 = 0x0000_0010
    public static let reportFileID: UInt32 = 0x0000_0200
    public static let reportDirectoryFileID: UInt32 = 0x0000_0400
    public static let reportName: UInt32 = 0x0000_0800
    /// `FAN_REPORT_TARGET_FID` (Linux 5.17): creation, removal and rename events carry the
    /// entry's own handle as well, which lets a file born outside the tree be told apart
    /// (``OutsideBornFiles``).
    public static let reportTargetFileID: UInt32 = 0x0000_1000
    /// `FAN_REPORT_DFID_NAME | FAN_REPORT_FID`: every event names its directory's handle and
    /// the entry's name, and an event on a file also carries the file's own handle.
    public static let reportDirectoryAndName: UInt32 = reportDirectoryFileID | reportName | reportFileID
}

/// `fanotify_mark` flags QuotaWatch uses.
public enum FanotifyMarkFlag {
    public static let add: UInt32 = 0x0000_0001
    public static let remove: UInt32 = 0x0000_0002
    public static let fileSystem: UInt32 = 0x0000_0100
}
