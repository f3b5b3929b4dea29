/// The fanotify backend's table from a directory's file handle to its watch number, and back,
/// in about 40 bytes per directory on ext4 (a dictionary each way held 148).
///
/// The handles sit one after the other in one byte arena, each entry
/// `{watch: Int32, fileSystem: UInt64, type: Int32, count: UInt8, bytes}`; two open-addressing
/// indexes of arena offsets find an entry by its handle and by its watch number. No object,
/// array or dictionary key per directory, and a lookup from an event's bytes allocates nothing.
/// A removed entry leaves a tombstone in each index and dead bytes in the arena; both are
/// reclaimed by rebuilding once they outweigh the live ones.
package struct DirectoryHandleTable: Sendable {
    private var arena: [UInt8] = []
    /// Offset + 1 of an entry, 0 for a free slot, `tombstone` for a removed one.
    private var byHandle: [UInt32] = []
    private var byWatch: [UInt32] = []
    /// Slots in use, tombstones included (the same in both indexes).
    private var used = 0
    package private(set) var count = 0
    private var deadBytes = 0

    private static let tombstone = UInt32.max
    private static let headerCount = 17

    package init() {}

    /// The watch number of the directory whose handle is `handle`, if the table holds it.
    package func watch(of handle: FileHandleKey) -> Int32? {
        handle.withBytes { watch(fileSystem: handle.fileSystem, type: handle.type, bytes: $0) }
    }

    /// The same for a handle read in place (an event's record): no allocation.
    package func watch(fileSystem: UInt64, type: Int32, bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let offset = find(fileSystem: fileSystem, type: type, bytes: bytes) else { return nil }
        return arena.withUnsafeBytes { Int32(bitPattern: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    /// Adds `handle` under `watch`; the caller has checked it is not there yet.
    package mutating func insert(_ handle: FileHandleKey, watch: Int32) {
        if (used + 1) * 4 > byHandle.count * 3 { rebuild(capacity: Self.capacity(for: count + 1)) }
        let offset = arena.count
        precondition(offset < Int(UInt32.max) - 256, "the handle table outgrew 4 GiB")
        withUnsafeBytes(of: UInt32(bitPattern: watch).littleEndian) { arena.append(contentsOf: $0) }
        withUnsafeBytes(of: handle.fileSystem.littleEndian) { arena.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(bitPattern: handle.type).littleEndian) { arena.append(contentsOf: $0) }
        arena.append(UInt8(truncatingIfNeeded: handle.count))
        handle.withBytes { arena.append(contentsOf: $0) }
        place(offset)
        count += 1
    }

    /// Removes the directory numbered `watch`, if the table holds it.
    package mutating func remove(watch: Int32) {
        let mask = byWatch.count - 1
        guard mask > 0 else { return }
        var slot = Self.mix(UInt64(UInt32(bitPattern: watch))) & mask
        while byWatch[slot] != 0 {
            let stored = byWatch[slot]
            if stored != Self.tombstone, self.watch(at: Int(stored - 1)) == watch {
                removeEntry(at: Int(stored - 1), watchSlot: slot)
                return
            }
            slot = (slot + 1) & mask
        }
    }

    /// Removes the directory whose handle is `handle`; returns its watch number.
    @discardableResult
    package mutating func remove(_ handle: FileHandleKey) -> Int32? {
        guard let watch = watch(of: handle) else { return nil }
        remove(watch: watch)
        return watch
    }

    /// Bytes held, indexes included: what the table costs the daemon.
    package var footprint: Int { arena.capacity + 4 * (byHandle.capacity + byWatch.capacity) }

    // MARK: - The indexes

    private func find(fileSystem: UInt64, type: Int32, bytes: UnsafeRawBufferPointer) -> Int? {
        let mask = byHandle.count - 1
        guard mask > 0 else { return nil }
        var slot = Self.hash(fileSystem: fileSystem, type: type, bytes: bytes) & mask
        return arena.withUnsafeBytes { arena in
            while byHandle[slot] != 0 {
                let stored = byHandle[slot]
                if stored != Self.tombstone,
                    Self.entry(in: arena, at: Int(stored - 1), is: fileSystem, type: type, bytes: bytes)
                {
                    return Int(stored - 1)
                }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    private static func entry(
        in arena: UnsafeRawBufferPointer, at offset: Int, is fileSystem: UInt64, type: Int32,
        bytes: UnsafeRawBufferPointer
    ) -> Bool {
        guard arena.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self) == fileSystem.littleEndian,
            arena.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) == UInt32(bitPattern: type).littleEndian,
            Int(arena[offset + 16]) == bytes.count
        else { return false }
        let start = offset + headerCount
        return memcmpEqual(UnsafeRawBufferPointer(rebasing: arena[start..<start + bytes.count]), bytes)
    }

    private static func memcmpEqual(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
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

    private func watch(at offset: Int) -> Int32 {
        arena.withUnsafeBytes {
            Int32(bitPattern: UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
    }

    private func entryCount(at offset: Int) -> Int { Self.headerCount + Int(arena[offset + 16]) }

    private func handleHash(at offset: Int) -> Int {
        arena.withUnsafeBytes { arena in
            let fileSystem = UInt64(littleEndian: arena.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))
            let type = Int32(
                bitPattern: UInt32(littleEndian: arena.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            let start = offset + Self.headerCount
            let bytes = UnsafeRawBufferPointer(rebasing: arena[start..<start + Int(arena[offset + 16])])
            return Self.hash(fileSystem: fileSystem, type: type, bytes: bytes)
        }
    }

    /// Puts the entry at `offset` in both indexes (free slots only: no tombstone is reused,
    /// so `used` stays an upper bound on the probe lengths).
    private mutating func place(_ offset: Int) {
        let mask = byHandle.count - 1
        var slot = handleHash(at: offset) & mask
        while byHandle[slot] != 0 { slot = (slot + 1) & mask }
        byHandle[slot] = UInt32(offset + 1)
        slot = Self.mix(UInt64(UInt32(bitPattern: watch(at: offset)))) & mask
        while byWatch[slot] != 0 { slot = (slot + 1) & mask }
        byWatch[slot] = UInt32(offset + 1)
        used += 1
    }

    private mutating func removeEntry(at offset: Int, watchSlot: Int) {
        byWatch[watchSlot] = Self.tombstone
        let mask = byHandle.count - 1
        var slot = handleHash(at: offset) & mask
        while byHandle[slot] != UInt32(offset + 1) { slot = (slot + 1) & mask }
        byHandle[slot] = Self.tombstone
        count -= 1
        deadBytes += entryCount(at: offset)
        if deadBytes > 65536, deadBytes > arena.count / 2 { rebuild(capacity: Self.capacity(for: count)) }
    }

    /// Copies the live entries into a fresh arena and indexes of `capacity` slots.
    private mutating func rebuild(capacity: Int) {
        var live: [Int] = []
        live.reserveCapacity(count)
        for stored in byWatch where stored != 0 && stored != Self.tombstone { live.append(Int(stored - 1)) }
        live.sort()
        let old = arena
        arena = []
        arena.reserveCapacity(old.count - deadBytes)
        byHandle = [UInt32](repeating: 0, count: capacity)
        byWatch = [UInt32](repeating: 0, count: capacity)
        used = 0
        deadBytes = 0
        for offset in live {
            let newOffset = arena.count
            arena.append(contentsOf: old[offset..<offset + Self.headerCount + Int(old[offset + 16])])
            place(newOffset)
        }
    }

    /// A power of two at least twice `entries` (and 16): the load stays under 3/4 until the
    /// next rebuild.
    private static func capacity(for entries: Int) -> Int {
        var capacity = 16
        while capacity < entries * 2 { capacity *= 2 }
        return capacity
    }

    // MARK: - Hashing

    /// A fixed hash (no per-process seed is needed: the handles are the kernel's, not an
    /// attacker's choice of keys), over whole words.
    private static func hash(fileSystem: UInt64, type: Int32, bytes: UnsafeRawBufferPointer) -> Int {
        var state = fileSystem ^ (UInt64(UInt32(bitPattern: type)) << 32 | UInt64(bytes.count))
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
