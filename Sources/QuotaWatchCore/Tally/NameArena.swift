/// Every name in the tree, end to end in one byte buffer, each after a byte holding its length.
///
/// A record keeps one offset instead of a `String`, which saves an allocation and some 40 bytes
/// per name; the length lives beside the name's bytes, so a file record needs no byte for it
/// (a length field would have pushed the record past 28 bytes). Names are raw bytes, so a name
/// that is not UTF-8 is kept exactly; a Linux name is at most 255 bytes (`NAME_MAX`). Offset 0
/// holds the empty name, the root's. Freed names become garbage; the tree compacts the arena
/// when garbage passes half.
struct NameArena {
    private(set) var bytes: [UInt8] = [0]
    private(set) var garbage = 0

    /// The offset of the empty name.
    static let emptyName: UInt32 = 0

    mutating func append(_ name: some Collection<UInt8>) -> UInt32 {
        precondition(name.count <= Int(UInt8.max), "a name is at most 255 bytes (NAME_MAX)")
        let offset = UInt32(bytes.count)
        bytes.append(UInt8(name.count))
        bytes.append(contentsOf: name)
        return offset
    }

    /// Marks the name at `offset` as garbage.
    mutating func release(at offset: UInt32) { garbage += 1 + Int(bytes[Int(offset)]) }

    var needsCompaction: Bool { garbage > 4096 && garbage * 2 > bytes.count }

    func name(at offset: UInt32) -> ArraySlice<UInt8> {
        let start = Int(offset) + 1
        return bytes[start..<start + Int(bytes[Int(offset)])]
    }

    func equals(offset: UInt32, _ other: some Collection<UInt8>) -> Bool {
        guard Int(bytes[Int(offset)]) == other.count else { return false }
        var index = Int(offset) + 1
        for byte in other {
            if bytes[index] != byte { return false }
            index += 1
        }
        return true
    }

    mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

    /// Starts a compaction: the caller re-appends every live name into the returned arena.
    func emptyCopy() -> NameArena {
        var fresh = NameArena()
        fresh.bytes.reserveCapacity(bytes.count - garbage)
        return fresh
    }
}
