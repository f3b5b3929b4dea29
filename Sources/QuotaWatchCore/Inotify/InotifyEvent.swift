/// One event as the kernel reports it: the watch it came from, what happened, the rename
/// cookie and the name inside the watched directory (empty for the directory itself).
package struct InotifyEvent: Sendable, Equatable {
    package var watch: Int32
    package var mask: InotifyMask
    package var cookie: UInt32
    package var name: [UInt8]

    package init(watch: Int32, mask: InotifyMask, cookie: UInt32 = 0, name: [UInt8] = []) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// Decodes a buffer filled by `read(2)` on an inotify descriptor: records of
    /// `{int wd; uint32 mask; uint32 cookie; uint32 len; char name[len]}`, the name padded
    /// with NULs. Little-endian on every Linux target Swift supports.
    package static func decode(_ bytes: some Collection<UInt8>, into events: inout [InotifyEvent]) {
        Array(bytes).withUnsafeBytes { decode(raw: $0, into: &events) }
    }

    /// The same over the reader's buffer, without copying it: the reader decodes every event
    /// the kernel sends, so this walks the bytes directly and allocates only the names.
    package static func decode(raw bytes: UnsafeRawBufferPointer, into events: inout [InotifyEvent]) {
        decode(raw: bytes) { events.append($0) }
    }

    /// The same walk, handing each event to `each` as it is decoded: the reader turns each
    /// into a change at once, with no array of events in between.
    ///
    /// An event naming what the one before it named (a new file's create, write and close come
    /// one after the other) gets that event's name array, not a copy: one allocation per file
    /// of a burst instead of three, and the tree's comparison with the name it last queued
    /// finds the same storage.
    package static func decode(raw bytes: UnsafeRawBufferPointer, _ each: (InotifyEvent) -> Void) {
        var offset = 0
        var previousName: [UInt8] = []
        func word(_ at: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
        while offset + 16 <= bytes.count {
            let length = Int(word(offset + 12))
            guard offset + 16 + length <= bytes.count else { return }
            let start = offset + 16
            var end = start
            while end < start + length && bytes[end] != 0 { end += 1 }
            if !isName(bytes, from: start, to: end, previousName) { previousName = Array(bytes[start..<end]) }
            each(
                InotifyEvent(
                    watch: Int32(bitPattern: word(offset)), mask: InotifyMask(rawValue: word(offset + 4)),
                    cookie: word(offset + 8), name: previousName))
            offset = start + length
        }
    }

    /// Whether `bytes[start..<end]` is `name`, compared from the end, where names made one after
    /// another differ (a counter, a hash); a plain loop, since the generic `elementsEqual`
    /// runs a witness call per byte in a debug build, where it slowed the reader enough for a
    /// burst to overflow the kernel's queue.
    private static func isName(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, _ name: [UInt8]) -> Bool {
        guard end - start == name.count else { return false }
        var index = name.count
        while index > 0 {
            index -= 1
            if bytes[start + index] != name[index] { return false }
        }
        return true
    }
}
