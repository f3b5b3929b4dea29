/// Every name in the tree, end to end in one byte buffer.
///
/// A record keeps an offset and a length instead of a `String`, which saves an allocation and
/// some 40 bytes per name. Names are raw bytes, so a name that is not UTF-8 is kept exactly.
/// Freed names become garbage; the tree compacts the arena when garbage passes half.
struct NameArena {
    private(set) var bytes: [UInt8] = []
    private(set) var garbage = 0

    mutating func append(_ name: some Collection<UInt8>) -> UInt32 {
        let offset = UInt32(bytes.count)
        bytes.append(contentsOf: name)
        return offset
    }

    mutating func release(length: Int) { garbage += length }

    var needsCompaction: Bool { garbage > 4096 && garbage * 2 > bytes.count }

    func name(at offset: UInt32, length: UInt8) -> ArraySlice<UInt8> {
        let start = Int(offset)
        return bytes[start..<start + Int(length)]
    }

    func equals(offset: UInt32, length: UInt8, _ other: some Collection<UInt8>) -> Bool {
        guard Int(length) == other.count else { return false }
        var index = Int(offset)
        for byte in other {
            if bytes[index] != byte { return false }
            index += 1
        }
        return true
    }

    /// Starts a compaction: the caller re-appends every live name into the returned arena.
    func emptyCopy() -> NameArena {
        var fresh = NameArena()
        fresh.bytes.reserveCapacity(bytes.count - garbage)
        return fresh
    }
}
