/// inotify event bits, with the kernel's values (they are part of the Linux ABI, see
/// inotify(7)), so event logic can be written and tested without the kernel headers.
public struct InotifyMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let access = InotifyMask(rawValue: 0x0000_0001)
    public static let modify = InotifyMask(rawValue: 0x0000_0002)
    public static let attrib = InotifyMask(rawValue: 0x0000_0004)
    public static let closeWrite = InotifyMask(rawValue: 0x0000_0008)
    public static let closeNoWrite = InotifyMask(rawValue: 0x0000_0010)
    public static let open = InotifyMask(rawValue: 0x0000_0020)
    public static let movedFrom = InotifyMask(rawValue: 0x0000_0040)
    public static let movedTo = InotifyMask(rawValue: 0x0000_0080)
    public static let create = InotifyMask(rawValue: 0x0000_0100)
    public static let delete = InotifyMask(rawValue: 0x0000_0200)
    public static let deleteSelf = InotifyMask(rawValue: 0x0000_0400)
    public static let moveSelf = InotifyMask(rawValue: 0x0000_0800)
    public static let unmount = InotifyMask(rawValue: 0x0000_2000)
    public static let queueOverflow = InotifyMask(rawValue: 0x0000_4000)
    public static let ignored = InotifyMask(rawValue: 0x0000_8000)
    public static let onlyDirectory = InotifyMask(rawValue: 0x0100_0000)
    public static let dontFollow = InotifyMask(rawValue: 0x0200_0000)
    public static let excludeUnlinked = InotifyMask(rawValue: 0x0400_0000)
    /// Adds to the mask of a watch the inode already has, instead of replacing it.
    public static let maskAdd = InotifyMask(rawValue: 0x2000_0000)
    public static let isDirectory = InotifyMask(rawValue: 0x4000_0000)

    /// What QuotaWatch watches on every directory. Never open or access: the engine's own
    /// crawls and stats would echo back as events. Not `dontFollow` either: watches are added
    /// through `/proc/self/fd/N`, a link that must be followed to reach the directory.
    public static let quotaWatch: InotifyMask = [
        .create, .delete, .modify, .closeWrite, .attrib, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]
}
