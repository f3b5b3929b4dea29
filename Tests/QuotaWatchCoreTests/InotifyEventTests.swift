import QuotaWatchCore
import Testing

@Suite("inotify event decoding")
struct InotifyEventTests {
    /// One kernel record: wd, mask, cookie, len, then the name padded with NULs to `len`.
    private func record(watch: Int32, mask: UInt32, cookie: UInt32, name: [UInt8], padTo length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for word in [UInt32(bitPattern: watch), mask, cookie, UInt32(length)] {
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return bytes + name + [UInt8](repeating: 0, count: length - name.count)
    }

    @Test func decodesConsecutiveRecordsWithRawNames() {
        let name: [UInt8] = [0x61, 0xff, 0x0a]
        let buffer =
            record(watch: 3, mask: 0x4000_0100, cookie: 0, name: name, padTo: 16)
            + record(watch: 3, mask: 0x40, cookie: 77, name: Array("old".utf8), padTo: 16)
            + record(watch: 1, mask: 0x400, cookie: 0, name: [], padTo: 0)
        var events: [InotifyEvent] = []
        InotifyEvent.decode(buffer, into: &events)
        #expect(
            events == [
                InotifyEvent(watch: 3, mask: [.create, .isDirectory], cookie: 0, name: name),
                InotifyEvent(watch: 3, mask: .movedFrom, cookie: 77, name: Array("old".utf8)),
                InotifyEvent(watch: 1, mask: .deleteSelf),
            ])
    }

    /// A new file's create, write and close name it three times in a row: they share one
    /// array (one allocation per file of a burst), and a different name in between is its own.
    @Test func aNameRepeatedByTheNextEventSharesItsStorage() {
        let buffer =
            record(watch: 3, mask: 0x100, cookie: 0, name: Array("f1".utf8), padTo: 16)
            + record(watch: 3, mask: 0x2, cookie: 0, name: Array("f1".utf8), padTo: 16)
            + record(watch: 4, mask: 0x8, cookie: 0, name: Array("f1".utf8), padTo: 32)
            + record(watch: 3, mask: 0x100, cookie: 0, name: Array("f2".utf8), padTo: 16)
            + record(watch: 3, mask: 0x400, cookie: 0, name: [], padTo: 0)
        var events: [InotifyEvent] = []
        InotifyEvent.decode(buffer, into: &events)
        #expect(events.map(\.name) == [Array("f1".utf8), Array("f1".utf8), Array("f1".utf8), Array("f2".utf8), []])
        #expect(events.map(\.watch) == [3, 3, 4, 3, 3])
        let storage = events.map { $0.name.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        #expect(storage[0] == storage[1] && storage[1] == storage[2], "one array for the three events of f1")
        #expect(storage[3] != storage[0], "another name gets its own")
    }

    @Test func overflowRecordHasNoWatch() {
        var events: [InotifyEvent] = []
        InotifyEvent.decode(record(watch: -1, mask: 0x4000, cookie: 0, name: [], padTo: 0), into: &events)
        #expect(events == [InotifyEvent(watch: -1, mask: .queueOverflow)])
    }

    @Test func truncatedTailIsIgnored() {
        let full = record(watch: 2, mask: 0x2, cookie: 0, name: Array("f".utf8), padTo: 16)
        var events: [InotifyEvent] = []
        InotifyEvent.decode(full + full.prefix(20), into: &events)
        #expect(events.count == 1)
    }

    @Test func watchedMaskNeverIncludesOpenOrAccess() {
        #expect(!InotifyMask.quotaWatch.contains(.open))
        #expect(!InotifyMask.quotaWatch.contains(.access))
        #expect(!InotifyMask.quotaWatch.contains(.dontFollow))
        #expect(InotifyMask.quotaWatch.contains([.create, .delete, .movedFrom, .movedTo, .closeWrite]))
    }
}
