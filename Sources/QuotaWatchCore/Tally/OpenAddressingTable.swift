/// A linear-probing hash set of `UInt32` values whose keys live elsewhere.
///
/// The tree keeps its keys (a parent and a name, or a device and an inode) in its own records;
/// this table only remembers where they are, 4 bytes a slot, which is what keeps the tree lean
/// at a million files. Callers pass the hash and a matcher; removal shifts later entries back
/// instead of leaving tombstones, so lookups never slow down under churn.
struct OpenAddressingTable {
    private static let empty: UInt32 = .max
    private var slots: [UInt32]
    private(set) var count = 0

    init(minimumCapacity: Int = 16) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity <<= 1 }
        slots = [UInt32](repeating: Self.empty, count: capacity)
    }

    /// An empty table of exactly `slotCount` slots, any number from 16 on: a slot is chosen by
    /// scaling the hash's high half to the count, not by masking, so a table need not double
    /// to fit (``fittedSlotCount``).
    init(slotCount: Int) {
        precondition(slotCount >= 16 && slotCount < 1 << 32, "16 slots to 2³² − 1")
        slots = [UInt32](repeating: Self.empty, count: slotCount)
    }

    var slotCount: Int { slots.count }

    /// Every stored value, in slot order (for consistency checks).
    var storedValues: [UInt32] { slots.filter { $0 != Self.empty } }

    /// The slot a hash starts probing at: its high 32 bits scaled to the slot count.
    @inline(__always)
    private func home(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: ((hash >> 32) &* UInt64(slots.count)) >> 32)
    }

    @inline(__always)
    private func after(_ index: Int) -> Int { index + 1 == slots.count ? 0 : index + 1 }

    /// How many slots forward `to` lies from `from`, wrapping at the end.
    @inline(__always)
    private func distance(from: Int, to: Int) -> Int { to >= from ? to - from : to - from + slots.count }

    func find(hash: UInt64, where matches: (UInt32) -> Bool) -> UInt32? {
        var index = home(hash)
        while true {
            let value = slots[index]
            if value == Self.empty { return nil }
            if matches(value) { return value }
            index = after(index)
        }
    }

    /// True when the next insert would pass 80 % load: the owner rebuilds the table larger first. Linear
    /// probing stays short enough there (about 3 probes to find a name, 13 to miss) while a
    /// table of a million names needs 4 MiB where a 70 % limit would often need 8.
    var needsGrowth: Bool { (count + 1) * 10 > slots.count * 8 }

    /// True when the table is large and under 10 % full: a tree that shrank by thousands of
    /// names rebuilds it smaller (``rebuilt(slotCount:rehash:)``), so its memory follows the tree.
    var isSparse: Bool { slots.count > 1024 && count * 10 < slots.count }

    /// The smallest power of two, at least 16, holding the entries under 40 % load: far from
    /// both the growth and the sparseness limits, so each rebuild is paid for by as many
    /// inserts or removals as the table has slots.
    var compactSlotCount: Int {
        var capacity = 16
        while capacity * 4 < count * 10 { capacity <<= 1 }
        return capacity
    }

    /// Slots for the entries at 75 % load, a multiple of 16: what a table that grew by
    /// doubling is rebuilt to once a crawl has filled it (``TallyTree/fitIndexesToContents()``).
    /// Doubling leaves a table between 40 and 80 % full: 220 000 names (grid-20k) took
    /// 524 288 slots, 9.5 B a name, where about 293 600, 5.3 B, hold them at 75 %.
    var fittedSlotCount: Int { max(16, (count * 4 / 3 + 16) & ~15) }

    /// True when ``fittedSlotCount`` would save at least a fifth of the slots.
    var isLoose: Bool { fittedSlotCount * 5 < slots.count * 4 }

    /// The same entries in a table of `slotCount` slots, walking this table's slots (not the
    /// owner's records, which may be far more than the entries left).
    func rebuilt(slotCount: Int, rehash: (UInt32) -> UInt64) -> OpenAddressingTable {
        var fresh = OpenAddressingTable(slotCount: slotCount)
        for value in slots where value != Self.empty { fresh.insert(value, hash: rehash(value)) }
        return fresh
    }

    /// Adds `value`; the caller guarantees no equal key is present and has rebuilt the table
    /// larger when ``needsGrowth`` said so.
    mutating func insert(_ value: UInt32, hash: UInt64) {
        precondition(!needsGrowth, "grow the table before inserting")
        var index = home(hash)
        while slots[index] != Self.empty { index = after(index) }
        slots[index] = value
        count += 1
    }

    /// Removes `value`, found by its own hash; `rehash` gives the hash of any stored value.
    mutating func remove(_ value: UInt32, hash: UInt64, rehash: (UInt32) -> UInt64) {
        var index = home(hash)
        while slots[index] != value {
            if slots[index] == Self.empty { return }
            index = after(index)
        }
        // Backward-shift deletion: pull forward every later entry whose home slot
        // lies at or before the hole, so no probe chain is broken.
        var hole = index
        var next = after(hole)
        while slots[next] != Self.empty {
            let distanceFromHome = distance(from: home(rehash(slots[next])), to: next)
            if distanceFromHome >= distance(from: hole, to: next) {
                slots[hole] = slots[next]
                hole = next
            }
            next = after(next)
        }
        slots[hole] = Self.empty
        count -= 1
    }

    /// Replaces a stored value by another with the same key (used when records move).
    mutating func replace(_ old: UInt32, with new: UInt32, hash: UInt64) {
        var index = home(hash)
        while slots[index] != old {
            if slots[index] == Self.empty { return }
            index = after(index)
        }
        slots[index] = new
    }

    mutating func removeAll() {
        slots = [UInt32](repeating: Self.empty, count: 16)
        count = 0
    }

}

/// FNV-1a over a parent number and a name: cheap, and good enough for linear probing once
/// the final avalanche spreads the bits (a table uses the high 32).
@inline(__always)
func hashName(parent: UInt32, _ name: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(parent)
    for byte in name {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return avalanche(hash)
}

@inline(__always)
func hashInode(device: UInt64, inode: UInt64) -> UInt64 {
    avalanche(inode &* 0x9e37_79b9_7f4a_7c15 ^ device)
}

@inline(__always)
private func avalanche(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xff51_afd7_ed55_8ccd
    x ^= x >> 33
    return x
}
