import QuotaWatchCore
import Testing

/// The fanotify backend's handle table against a pair of dictionaries doing the same: random
/// inserts and removals (by watch and by handle) of handles 0 to 64 bytes long, enough of them
/// to grow the indexes and compact the arena several times.
@Suite("the directory handle table")
struct DirectoryHandleTableTests {
    static func randomHandle(_ random: inout SeededGenerator) -> FileHandleKey {
        let count = Int.random(in: 0...64, using: &random)
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...3, using: &random) }
        return FileHandleKey(
            fileSystem: UInt64.random(in: 1...2, using: &random), type: Int32.random(in: 1...2, using: &random),
            bytes: bytes)
    }

    @Test("matches a dictionary through growth, removals and compaction", arguments: [1, 2, 3] as [UInt64])
    func matchesDictionary(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var table = DirectoryHandleTable()
        var model: [FileHandleKey: Int32] = [:]
        var nextWatch: Int32 = 1
        for step in 0..<60_000 {
            let handle = Self.randomHandle(&random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                if model[handle] == nil {
                    table.insert(handle, watch: nextWatch)
                    model[handle] = nextWatch
                    nextWatch += 1
                }
            case 6..<8:
                guard let (victim, watch) = model.randomElement(using: &random) else { continue }
                table.remove(watch: watch)
                model[victim] = nil
            default:
                #expect(table.remove(handle) == model.removeValue(forKey: handle), "seed \(seed), step \(step)")
            }
            if step % 997 == 0 {
                #expect(table.count == model.count, "seed \(seed), step \(step)")
                for (known, watch) in model {
                    guard table.watch(of: known) == watch else {
                        Issue.record("seed \(seed), step \(step): \(known.bytes) lost (watch \(watch))")
                        return
                    }
                }
            }
        }
        #expect(table.count == model.count, "seed \(seed)")
        #expect(model.allSatisfy { table.watch(of: $0.key) == $0.value }, "seed \(seed)")
        // Emptied: every entry goes, and the arena with them.
        for watch in model.values { table.remove(watch: watch) }
        #expect(table.count == 0, "seed \(seed)")
        #expect(model.keys.allSatisfy { table.watch(of: $0) == nil }, "seed \(seed)")
    }

    @Test("a lookup from raw bytes finds what a key finds, and removed watches stay gone")
    func rawLookup() {
        var table = DirectoryHandleTable()
        let short = FileHandleKey(fileSystem: 7, type: 1, bytes: [1, 2, 3, 4, 5, 6, 7, 8])
        let long = FileHandleKey(fileSystem: 7, type: 1, bytes: (0..<40).map { UInt8($0) })
        table.insert(short, watch: 1)
        table.insert(long, watch: 2)
        let eight: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(eight.withUnsafeBytes { table.watch(fileSystem: 7, type: 1, bytes: $0) } == 1)
        #expect((0..<40).map { UInt8($0) }.withUnsafeBytes { table.watch(fileSystem: 7, type: 1, bytes: $0) } == 2)
        #expect(eight.withUnsafeBytes { table.watch(fileSystem: 8, type: 1, bytes: $0) } == nil)
        #expect(eight.dropLast().withUnsafeBytes { table.watch(fileSystem: 7, type: 1, bytes: $0) } == nil)
        table.remove(watch: 1)
        #expect(table.watch(of: short) == nil && table.watch(of: long) == 2 && table.count == 1)
    }

    /// ext4 gives every directory an 8-byte `FILEID_INO32_GEN` handle: said once for all of
    /// them, a directory costs its 12-byte record and its index slot (45 B with the shape in
    /// every entry and a second index by watch number).
    @Test("handles of one shape cost at most 24 bytes each, and a watch is found after removals around it")
    func oneShapeFootprint() {
        var table = DirectoryHandleTable()
        let directories = 100_000
        func handle(_ index: Int) -> FileHandleKey {
            let bytes = withUnsafeBytes(of: UInt64(index &* 2_654_435_761).littleEndian) { Array($0) }
            return FileHandleKey(fileSystem: 0x1234_5678, type: 1, bytes: bytes)
        }
        for index in 0..<directories { table.insert(handle(index), watch: Int32(index + 1)) }
        let perDirectory = Double(table.footprint) / Double(directories)
        #expect(perDirectory <= 24, "\(perDirectory) B per directory")
        for index in stride(from: 0, to: directories, by: 2) { table.remove(watch: Int32(index + 1)) }
        #expect(table.count == directories / 2)
        #expect(table.watch(of: handle(1)) == 2 && table.watch(of: handle(99_999)) == 100_000)
        #expect(table.watch(of: handle(0)) == nil && table.remove(handle(2)) == nil)
        #expect(table.remove(handle(3)) == 4 && table.watch(of: handle(3)) == nil)
        table.remove(watch: 6)
        #expect(table.watch(of: handle(5)) == nil && table.watch(of: handle(7)) == 8)
    }

    @Test("a handle longer than the 32 bytes held in place keeps its bytes, equality and hash")
    func longHandles() {
        let bytes = (0..<100).map { UInt8($0) }
        let key = FileHandleKey(fileSystem: 1, type: 2, bytes: bytes)
        #expect(key.bytes == bytes)
        var other = bytes
        other[99] = 0
        #expect(key != FileHandleKey(fileSystem: 1, type: 2, bytes: other))
        #expect(Set([key, FileHandleKey(fileSystem: 1, type: 2, bytes: bytes)]).count == 1)
        #expect(FileHandleKey(fileSystem: 1, type: 2, bytes: [0]) != FileHandleKey(fileSystem: 1, type: 2, bytes: []))
    }
}
