/// The directories of ``DirectoryHandleTable`` whose handles share one shape: one file system,
/// one handle type and one length. On ext4 every directory's handle is `FILEID_INO32_GEN` of 8
/// bytes, on xfs one of two shapes, so the shape is said once here, not once per directory.
///
/// Each directory is a fixed-width record `{watch: UInt32, bytes}` (12 bytes on ext4) in one
/// array, in the order of insertion, which is the order of watch numbers (they only grow): a
/// watch number is found by binary search, with no index of its own. One open-addressing
/// index of record numbers finds a record by its handle. A removed record keeps its place with
/// its watch number's high bit set, and leaves a tombstone in the index; both are reclaimed by
/// a rebuild once they outweigh the live ones.
struct HandleShapeTable: Sendable {
    let fileSystem: UInt64
    let type: Int32
    /// The handle's length in bytes.
    let width: Int
    private var records: [UInt8] = []
    /// Record number + 1, 0 for a free slot, `tombstone` for a removed one.
    private var slots: [UInt32] = []
    /// Slots in use, tombstones included.
    private var used = 0
    private(set) var count = 0
    private var removedCount = 0

    private static let tombstone = UInt32.max
    private static let removedBit: UInt32 = 0x8000_0000

    init(fileSystem: UInt64, type: Int32, width: Int) {
        self.fileSystem = fileSystem
        self.type = type
        self.width = width
    }

    private var stride: Int { 4 + width }
    private var recordCount: Int { records.count / stride }

    func holds(fileSystem: UInt64, type: Int32, width: Int) -> Bool {
        self.width == width && self.fileSystem == fileSystem && self.type == type
    }

    /// The watch number of the handle whose bytes are `bytes` (`width` of them).
    func watch(of bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let record = find(bytes) else { return nil }
        return Int32(bitPattern: storedWatch(at: record))
    }

    /// Adds a handle of this shape under `watch`, greater than every watch added before; the
    /// caller has checked it is not there yet.
    mutating func insert(_ bytes: UnsafeRawBufferPointer, watch: Int32) {
        precondition(watch > 0, "watch numbers start at 1")
        precondition(
            recordCount == 0 || watch > Int32(bitPattern: storedWatch(at: recordCount - 1) & ~Self.removedBit),
            "watch numbers only grow")
        if (used + 1) * 4 > slots.count * 3 { rebuild(capacity: Self.capacity(for: count + 1)) }
        precondition(recordCount < Int(UInt32.max) - 1, "the handle table outgrew 4 G directories")
        withUnsafeBytes(of: UInt32(bitPattern: watch).littleEndian) { records.append(contentsOf: $0) }
        records.append(contentsOf: bytes)
        place(recordCount - 1)
        count += 1
    }

    /// Removes the directory numbered `watch`; false if this shape does not hold it.
    mutating func remove(watch: Int32) -> Bool {
        guard let record = record(numbered: watch) else { return false }
        let hash = records.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[handleRange(record)])) }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != UInt32(record + 1) { slot = (slot + 1) & mask }
        removeRecord(record, slot: slot)
        return true
    }

    /// Removes the handle whose bytes are `bytes`; returns its watch number.
    mutating func remove(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let (record, slot) = locate(bytes) else { return nil }
        let watch = Int32(bitPattern: storedWatch(at: record))
        removeRecord(record, slot: slot)
        return watch
    }

    /// Bytes in use, the index included: the records' spare capacity past their count is never
    /// written, so it takes no resident memory (an array that size is mapped by `malloc`).
    var footprint: Int { records.count + 4 * slots.count }

    // MARK: - Records and the index

    private func handleRange(_ record: Int) -> Range<Int> {
        let start = record * stride + 4
        return start..<start + width
    }

    private func storedWatch(at record: Int) -> UInt32 {
        records.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: record * stride, as: UInt32.self))
        }
    }

    private func matches(_ record: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        records.withUnsafeBytes { Self.equal(UnsafeRawBufferPointer(rebasing: $0[handleRange(record)]), bytes) }
    }

    private func find(_ bytes: UnsafeRawBufferPointer) -> Int? { locate(bytes)?.record }

    /// The record holding `bytes` and the index slot that names it.
    private func locate(_ bytes: UnsafeRawBufferPointer) -> (record: Int, slot: Int)? {
        let mask = slots.count - 1
        guard mask > 0 else { return nil }
        var slot = Self.hash(bytes) & mask
        while slots[slot] != 0 {
            let stored = slots[slot]
            if stored != Self.tombstone, matches(Int(stored - 1), bytes) { return (Int(stored - 1), slot) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The live record numbered `watch`: records are in watch order, a removed one keeps its
    /// number under the high bit.
    private func record(numbered watch: Int32) -> Int? {
        guard watch > 0 else { return nil }
        let wanted = UInt32(bitPattern: watch)
        var low = 0
        var high = recordCount
        while low < high {
            let middle = (low + high) / 2
            if storedWatch(at: middle) & ~Self.removedBit < wanted { low = middle + 1 } else { high = middle }
        }
        guard low < recordCount, storedWatch(at: low) == wanted else { return nil }
        return low
    }

    /// Puts `record` in the index (free slots only: no tombstone is reused, so `used` stays an
    /// upper bound on the probe lengths).
    private mutating func place(_ record: Int) {
        let hash = records.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[handleRange(record)])) }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(record + 1)
        used += 1
    }

    private mutating func removeRecord(_ record: Int, slot: Int) {
        slots[slot] = Self.tombstone
        let marked = (storedWatch(at: record) | Self.removedBit).littleEndian
        let offset = record * stride
        records.withUnsafeMutableBytes { $0.storeBytes(of: marked, toByteOffset: offset, as: UInt32.self) }
        count -= 1
        removedCount += 1
        if count == 0 {
            records = []
            slots = []
            used = 0
            removedCount = 0
        } else if removedCount * stride > 65536, removedCount > count {
            rebuild(capacity: Self.capacity(for: count))
        }
    }

    /// Copies the live records, in order, into a fresh array and an index of `capacity` slots.
    private mutating func rebuild(capacity: Int) {
        if removedCount > 0 {
            let stride = self.stride
            var live: [UInt8] = []
            live.reserveCapacity(count * stride)
            records.withUnsafeBytes { old in
                for record in 0..<old.count / stride
                where old.loadUnaligned(fromByteOffset: record * stride, as: UInt32.self) & Self.removedBit.littleEndian
                    == 0
                {
                    live.append(contentsOf: old[record * stride..<(record + 1) * stride])
                }
            }
            records = live
            removedCount = 0
        }
        slots = [UInt32](repeating: 0, count: capacity)
        used = 0
        for record in 0..<recordCount { place(record) }
    }

    /// A power of two at least twice `entries` (and 16): the load stays under 3/4 until the
    /// next rebuild.
    private static func capacity(for entries: Int) -> Int {
        var capacity = 16
        while capacity < entries * 2 { capacity *= 2 }
        return capacity
    }

    // MARK: - Hashing

    private static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= left.count {
            if left.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != right.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                return false
            }
            index += 8
        }
        while index < left.count {
            if left[index] != right[index] { return false }
            index += 1
        }
        return true
    }

    /// A fixed hash (no per-process seed is needed: the handles are the kernel's, not an
    /// attacker's choice of keys), over whole words; the shape is the same for every record.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var state = UInt64(bytes.count)
        var index = 0
        while index + 8 <= bytes.count {
            state = mixStep(state, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        if index < bytes.count {
            var last: UInt64 = 0
            withUnsafeMutableBytes(of: &last) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[index...]))
            }
            state = mixStep(state, last)
        }
        return mix(state)
    }

    private static func mixStep(_ state: UInt64, _ word: UInt64) -> UInt64 {
        (state ^ word) &* 0x9E37_79B9_7F4A_7C15 ^ (state >> 29)
    }

    private static func mix(_ value: UInt64) -> Int {
        var x = value
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x & 0x7FFF_FFFF_FFFF_FFFF)
    }
}
