import QuotaWatchCore
import Testing

/// Builds kernel records byte for byte, as fanotify(7) lays them out.
enum FanotifyFixture {
    static func little(_ value: UInt64, bytes count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// `{u8 type; u8 pad; u16 len; fsid[2]; u32 handle_bytes; s32 handle_type; bytes; name NUL}`,
    /// padded to a multiple of 4 as the kernel pads it.
    static func info(type: UInt8, handle: FileHandleKey, name: [UInt8]? = nil) -> [UInt8] {
        var body = little(handle.fileSystem, bytes: 8) + little(UInt64(handle.bytes.count), bytes: 4)
        body += little(UInt64(UInt32(bitPattern: handle.type)), bytes: 4) + handle.bytes
        if let name { body += name + [0] }
        while (body.count + 4) % 4 != 0 { body.append(0) }
        return [type, 0] + little(UInt64(body.count + 4), bytes: 2) + body
    }

    /// `{u32 event_len; u8 vers; u8 reserved; u16 metadata_len; u64 mask; s32 fd; s32 pid}` and
    /// the records.
    static func event(mask: UInt64, _ records: [[UInt8]] = [], version: UInt8 = 3) -> [UInt8] {
        let body = records.flatMap { $0 }
        return little(UInt64(24 + body.count), bytes: 4) + [version, 0] + little(24, bytes: 2)
            + little(mask, bytes: 8) + little(UInt64(UInt32(bitPattern: -1)), bytes: 4) + little(42, bytes: 4) + body
    }

    static func handle(_ inode: UInt8, fileSystem: UInt64 = 0xd508_2e27_ad00_e241) -> FileHandleKey {
        FileHandleKey(fileSystem: fileSystem, type: 1, bytes: [inode, 0, 0, 0, 7, 0, 0, 0])
    }
}

@Suite("fanotify event decoding")
struct FanotifyEventTests {
    typealias F = FanotifyFixture

    @Test func decodesDirectoryNameAndObjectRecords() {
        let directory = F.handle(1)
        let file = F.handle(2)
        let buffer =
            F.event(mask: 0x0100, [F.info(type: 2, handle: directory, name: Array("new".utf8))])
            + F.event(
                mask: 0x000a, [F.info(type: 2, handle: directory, name: [0x61, 0xff]), F.info(type: 1, handle: file)])
        #expect(
            FanotifyEvent.decode(buffer) == [
                FanotifyEvent(
                    mask: .create,
                    records: [FanotifyRecord(kind: .directoryName, handle: directory, name: Array("new".utf8))]),
                FanotifyEvent(
                    mask: [.modify, .closeWrite],
                    records: [
                        FanotifyRecord(kind: .directoryName, handle: directory, name: [0x61, 0xff]),
                        FanotifyRecord(kind: .object, handle: file),
                    ]),
            ])
    }

    @Test func decodesRenameRecordsAndOverflow() {
        let buffer =
            F.event(
                mask: 0x5000_0000,
                [
                    F.info(type: 10, handle: F.handle(1), name: Array("a".utf8)),
                    F.info(type: 12, handle: F.handle(3), name: Array("b".utf8)),
                ]) + F.event(mask: 0x4000)
        let events = FanotifyEvent.decode(buffer)
        #expect(events.count == 2)
        #expect(events[0].mask == [.rename, .onDirectory])
        #expect(events[0].record(.oldDirectoryName)?.name == Array("a".utf8))
        #expect(events[0].record(.newDirectoryName)?.handle == F.handle(3))
        #expect(events[1] == FanotifyEvent(mask: .queueOverflow))
    }

    @Test func skipsRecordTypesItDoesNotRead() {
        let pidfd: [UInt8] = [4, 0, 8, 0, 9, 0, 0, 0]
        let events = FanotifyEvent.decode(F.event(mask: 0x4, [pidfd, F.info(type: 1, handle: F.handle(5))]))
        #expect(events == [FanotifyEvent(mask: .attrib, records: [FanotifyRecord(kind: .object, handle: F.handle(5))])])
    }

    /// Every prefix of a valid buffer, and every single-byte corruption of it, decodes without
    /// trapping, and never yields more events than the buffer holds whole.
    @Test func truncatedAndCorruptBuffersNeverTrap() {
        let buffer =
            F.event(mask: 0x0100, [F.info(type: 2, handle: F.handle(1), name: Array("x".utf8))])
            + F.event(
                mask: 0x1000_0000,
                [
                    F.info(type: 10, handle: F.handle(1), name: []),
                    F.info(type: 12, handle: F.handle(2), name: Array("yz".utf8)),
                ])
        for length in 0...buffer.count {
            let events = FanotifyEvent.decode(Array(buffer[0..<length]))
            #expect(events.count <= (length == buffer.count ? 2 : 1))
        }
        for index in buffer.indices {
            for value: UInt8 in [0, 1, 3, 0x7f, 0xff] {
                var corrupt = buffer
                corrupt[index] = value
                #expect(FanotifyEvent.decode(corrupt).count <= 2)
            }
        }
    }

    @Test func aRecordWhoseHandleOverrunsItIsDropped() {
        var info = F.info(type: 2, handle: F.handle(1), name: Array("n".utf8))
        info[12] = 200  // handle_bytes far beyond the record
        let events = FanotifyEvent.decode(F.event(mask: 0x0100, [info]))
        #expect(events == [FanotifyEvent(mask: .create)])
    }

    @Test func anotherMetadataVersionEndsDecoding() {
        #expect(FanotifyEvent.decode(F.event(mask: 0x0100, version: 4)).isEmpty)
    }
}
