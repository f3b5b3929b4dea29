/// fanotify event bits, with the kernel's values (part of the Linux ABI, see fanotify(7)), so
/// event logic can be written and tested without the kernel headers.
package struct FanotifyMask: OptionSet, Sendable, Hashable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static let modify = FanotifyMask(rawValue: 0x0000_0002)
    /// Asked only on the directories `order: lru` cleans, by an inode mark of each
    /// (``opensOfChildren``), never on the file system: every open on it would come.
    package static let open = FanotifyMask(rawValue: 0x0000_0020)
    /// On an inode mark of a directory: the events of the entries in it, too.
    package static let eventOnChild = FanotifyMask(rawValue: 0x0800_0000)
    package static let attrib = FanotifyMask(rawValue: 0x0000_0004)
    package static let closeWrite = FanotifyMask(rawValue: 0x0000_0008)
    package static let movedFrom = FanotifyMask(rawValue: 0x0000_0040)
    package static let movedTo = FanotifyMask(rawValue: 0x0000_0080)
    package static let create = FanotifyMask(rawValue: 0x0000_0100)
    package static let delete = FanotifyMask(rawValue: 0x0000_0200)
    package static let deleteSelf = FanotifyMask(rawValue: 0x0000_0400)
    package static let moveSelf = FanotifyMask(rawValue: 0x0000_0800)
    package static let queueOverflow = FanotifyMask(rawValue: 0x0000_4000)
    package static let rename = FanotifyMask(rawValue: 0x1000_0000)
    package static let onDirectory = FanotifyMask(rawValue: 0x4000_0000)

    /// What QuotaWatch marks on a file system: inotify's `quotaWatch` set, with one `rename`
    /// event (both names in one record) instead of the `moved_from`/`moved_to` pair, which
    /// fanotify reports without a cookie to pair them by. Never open or access: the engine's
    /// own crawls and stats would echo back.
    package static let quotaWatch: FanotifyMask = [
        .create, .delete, .rename, .modify, .closeWrite, .attrib, .deleteSelf, .moveSelf, .onDirectory,
    ]

    /// The inode mark of a directory whose files' opens `order: lru` needs.
    package static let opensOfChildren: FanotifyMask = [.open, .eventOnChild]
}

/// `fanotify_init` flags QuotaWatch uses (fanotify(2)).
package enum FanotifyInitFlag {
    package static let closeOnExec: UInt32 = 0x0000_0001
    package static let nonBlocking: UInt32 = 0x0000_0002
    package static let notificationClass: UInt32 = 0x0000_0000
    package static let unlimitedQueue: UInt32 = 0x0000_0010
    package static let reportFileID: UInt32 = 0x0000_0200
    package static let reportDirectoryFileID: UInt32 = 0x0000_0400
    package static let reportName: UInt32 = 0x0000_0800
    /// `FAN_REPORT_TARGET_FID` (Linux 5.17): creation, removal and rename events carry the
    /// entry's own handle as well, which lets a file born outside the tree be told apart
    /// (``OutsideBornFiles``).
    package static let reportTargetFileID: UInt32 = 0x0000_1000
    /// `FAN_REPORT_DFID_NAME | FAN_REPORT_FID`: every event names its directory's handle and
    /// the entry's name, and an event on a file also carries the file's own handle.
    package static let reportDirectoryAndName: UInt32 = reportDirectoryFileID | reportName | reportFileID
}

/// `fanotify_mark` flags QuotaWatch uses.
package enum FanotifyMarkFlag {
    package static let add: UInt32 = 0x0000_0001
    package static let remove: UInt32 = 0x0000_0002
    package static let fileSystem: UInt32 = 0x0000_0100
}
