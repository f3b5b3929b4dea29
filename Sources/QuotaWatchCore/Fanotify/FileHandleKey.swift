/// A file handle as fanotify reports it and `name_to_handle_at` returns it: unique to one
/// object of one file system for as long as the object lives (the generation number in it
/// tells a reused inode number apart), and the same for every path and bind mount of it.
///
/// The first 32 bytes are held in place, which covers the handles of ext4 (8), tmpfs (12),
/// xfs (8 to 24) and btrfs (20 to 40 less its parent): making one from an event, hashing it
/// and comparing it allocate nothing, which is most of what an event elsewhere on the file
/// system costs. Longer ones keep the bytes past the 32 in an array.
package struct FileHandleKey: Hashable, Sendable {
    /// statfs's `f_fsid`: `val[0]` in the low half, `val[1]` in the high half.
    package var fileSystem: UInt64
    package var type: Int32
    /// `handle_bytes`: at most 128 (`MAX_HANDLE_SZ`).
    package private(set) var count: Int32
    /// Bytes 0..<32, little-endian, zero past `count` (so that equal handles are equal words).
    private var head: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Bytes 32..<count, or nil for a handle of 32 bytes or fewer.
    private var tail: [UInt8]?

    static let inlineCount = 32

    package init(fileSystem: UInt64, type: Int32, bytes: [UInt8]) {
        self.fileSystem = fileSystem
        self.type = type
        count = Int32(bytes.count)
        bytes.withUnsafeBytes { fill(from: $0) }
    }

    /// Copies the handle out of `raw` (an event record, say): no allocation up to 32 bytes.
    package init(fileSystem: UInt64, type: Int32, raw: UnsafeRawBufferPointer) {
        self.fileSystem = fileSystem
        self.type = type
        count = Int32(raw.count)
        fill(from: raw)
    }

    private mutating func fill(from raw: UnsafeRawBufferPointer) {
        let inline = min(raw.count, Self.inlineCount)
        withUnsafeMutableBytes(of: &head) { words in
            words.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[0..<inline]))
        }
        tail = raw.count > Self.inlineCount ? Array(raw[Self.inlineCount...]) : nil
    }

    /// The handle's bytes, for `open_by_handle_at` and tests.
    package var bytes: [UInt8] {
        var result = [UInt8](repeating: 0, count: Int(count))
        result.withUnsafeMutableBytes { out in withBytes { out.copyMemory(from: $0) } }
        return result
    }

    /// Runs `body` over the handle's bytes; allocates only for a handle longer than 32 bytes.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        guard let tail else {
            return withUnsafeBytes(of: head) { body(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
        }
        var joined = [UInt8](repeating: 0, count: Int(count))
        joined.withUnsafeMutableBytes { out in
            withUnsafeBytes(of: head) { out.copyMemory(from: $0) }
            tail.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[Self.inlineCount...]).copyMemory(from: $0)
            }
        }
        return joined.withUnsafeBytes(body)
    }

    package static func == (left: Self, right: Self) -> Bool {
        left.fileSystem == right.fileSystem && left.type == right.type && left.count == right.count
            && left.head == right.head && left.tail == right.tail
    }

    /// The words folded into one before the hasher sees them: SipHash's cost grows with what
    /// it is fed, and the sets of files born outside hash a handle for most events elsewhere.
    package func hash(into hasher: inout Hasher) {
        var folded = fileSystem ^ UInt64(UInt32(bitPattern: type)) << 40 ^ UInt64(UInt32(bitPattern: count))
        folded = (folded ^ head.0) &* 0x9E37_79B9_7F4A_7C15
        folded = (folded ^ head.1) &* 0x9E37_79B9_7F4A_7C15
        folded = (folded ^ head.2) &* 0x9E37_79B9_7F4A_7C15
        folded = (folded ^ head.3) &* 0x9E37_79B9_7F4A_7C15
        hasher.combine(folded)
        if let tail { tail.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
