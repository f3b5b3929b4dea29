/// inotify event bits, with the kernel's values (they are part of the Linux ABI, see
/// inotify(7)), so event logic can be written and tested without the kernel headers.
package struct InotifyMask: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let access = InotifyMask(rawValue: 0x0000_0001)
    package static let modify = InotifyMask(rawValue: 0x0000_0002)
    package static let attrib = InotifyMask(rawValue: 0x0000_0004)
    package static let closeWrite = InotifyMask(rawValue: 0x0000_0008)
    package static let closeNoWrite = InotifyMask(rawValue: 0x0000_0010)
    package static let open = InotifyMask(rawValue: 0x0000_0020)
    package static let movedFrom = InotifyMask(rawValue: 0x0000_0040)
    package static let movedTo = InotifyMask(rawValue: 0x0000_0080)
    package static let create = InotifyMask(rawValue: 0x0000_0100)
    package static let delete = InotifyMask(rawValue: 0x0000_0200)
    package static let deleteSelf = InotifyMask(rawValue: 0x0000_0400)
    package static let moveSelf = InotifyMask(rawValue: 0x0000_0800)
    package static let unmount = InotifyMask(rawValue: 0x0000_2000)
    package static let queueOverflow = InotifyMask(rawValue: 0x0000_4000)
    package static let ignored = InotifyMask(rawValue: 0x0000_8000)
    package static let onlyDirectory = InotifyMask(rawValue: 0x0100_0000)
    package static let dontFollow = InotifyMask(rawValue: 0x0200_0000)
    package static let excludeUnlinked = InotifyMask(rawValue: 0x0400_0000)
    /// Adds to the mask of a watch the inode already has, instead of replacing it.
    package static let maskAdd = InotifyMask(rawValue: 0x2000_0000)
    package static let isDirectory = InotifyMask(rawValue: 0x4000_0000)

    /// What QuotaWatch watches on every directory. Never open or access: the engine's own
    /// crawls and stats would echo back as events. Not `dontFollow` either: watches are added
    /// through `/proc/self/fd/N`, a link that must be followed to reach the directory.
    package static let quotaWatch: InotifyMask = [
        .create, .delete, .modify, .closeWrite, .attrib, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]
}
