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
    public static let isDirectory = InotifyMask(rawValue: 0x4000_0000)

    /// What QuotaWatch watches on every directory. Never open or access: the engine's own
    /// crawls and stats would echo back as events. Not `dontFollow` either: watches are added
    /// through `/proc/self/fd/N`, a link that must be followed to reach the directory.
    public static let quotaWatch: InotifyMask = [
        .create, .delete, .modify, .closeWrite, .attrib, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]
}

/// One event as the kernel reports it: the watch it came from, what happened, the rename
/// cookie and the name inside the watched directory (empty for the directory itself).
public struct InotifyEvent: Sendable, Equatable {
    public var watch: Int32
    public var mask: InotifyMask
    public var cookie: UInt32
    public var name: [UInt8]

    public init(watch: Int32, mask: InotifyMask, cookie: UInt32 = 0, name: [UInt8] = []) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// Decodes a buffer filled by `read(2)` on an inotify descriptor: records of
    /// `{int wd; uint32 mask; uint32 cookie; uint32 len; char name[len]}`, the name padded
    /// with NULs. Little-endian on every Linux target Swift supports.
    public static func decode(_ bytes: some Collection<UInt8>, into events: inout [InotifyEvent]) {
        Array(bytes).withUnsafeBytes { decode(raw: $0, into: &events) }
    }

    /// The same over the reader's buffer, without copying it: the reader decodes every event
    /// the kernel sends, so this walks the bytes directly and allocates only the names.
    public static func decode(raw bytes: UnsafeRawBufferPointer, into events: inout [InotifyEvent]) {
        decode(raw: bytes) { events.append($0) }
    }

    /// The same walk, handing each event to `each` as it is decoded: the reader turns each
    /// into a change at once, with no array of events in between.
    public static func decode(raw bytes: UnsafeRawBufferPointer, _ each: (InotifyEvent) -> Void) {
        var offset = 0
        func word(_ at: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
        while offset + 16 <= bytes.count {
            let length = Int(word(offset + 12))
            guard offset + 16 + length <= bytes.count else { return }
            let start = offset + 16
            var end = start
            while end < start + length && bytes[end] != 0 { end += 1 }
            each(
                InotifyEvent(
                    watch: Int32(bitPattern: word(offset)), mask: InotifyMask(rawValue: word(offset + 4)),
                    cookie: word(offset + 8), name: Array(bytes[start..<end])))
            offset = start + length
        }
    }
}
