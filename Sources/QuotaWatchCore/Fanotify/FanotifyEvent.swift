/// One fanotify event read from a group made with `FAN_REPORT_DFID_NAME | FAN_REPORT_FID`:
/// what happened and the information records naming what it happened to.
package struct FanotifyEvent: Sendable, Equatable {
    package var mask: FanotifyMask
    package var records: [FanotifyRecord]

    package init(mask: FanotifyMask, records: [FanotifyRecord] = []) {
        self.mask = mask
        self.records = records
    }

    /// The first record of `kind`, if the event has one.
    package func record(_ kind: FanotifyRecord.Kind) -> FanotifyRecord? { records.first { $0.kind == kind } }

    /// The metadata version this decoder reads (`FANOTIFY_METADATA_VERSION`).
    package static let metadataVersion: UInt8 = 3
    static let metadataLength = 24

    /// Decodes a buffer filled by `read(2)` on a fanotify descriptor. Each event is
    /// `{u32 event_len; u8 vers; u8 reserved; u16 metadata_len; u64 mask; s32 fd; s32 pid}`
    /// followed by information records `{u8 type; u8 pad; u16 len; ...}` up to `event_len`.
    /// A record of a type this decoder does not read is skipped; an event or record whose
    /// lengths do not fit the buffer ends the decoding (or that event's records) there, so a
    /// short or corrupt buffer never reads past its end. Little-endian, as on every Linux
    /// target Swift supports.
    package static func decode(raw bytes: UnsafeRawBufferPointer, into events: inout [FanotifyEvent]) {
        var offset = 0
        while offset + metadataLength <= bytes.count {
            let length = Int(bytes.word32(offset))
            let version = bytes[offset + 4]
            let metadata = Int(bytes.word16(offset + 6))
            guard version == metadataVersion, metadata >= metadataLength, length >= metadata,
                length <= bytes.count - offset
            else { return }
            let mask = FanotifyMask(rawValue: bytes.word64(offset + 8))
            var event = FanotifyEvent(mask: mask)
            FanotifyRecord.decode(bytes, from: offset + metadata, to: offset + length, into: &event.records)
            events.append(event)
            offset += length
        }
    }

    /// The same over an array, for tests and fixtures.
    package static func decode(_ bytes: [UInt8]) -> [FanotifyEvent] {
        var events: [FanotifyEvent] = []
        bytes.withUnsafeBytes { decode(raw: $0, into: &events) }
        return events
    }
}

/// One information record of a fanotify event: a file handle, and for the kinds that carry
/// one, the name of an entry in the directory the handle is of.
package struct FanotifyRecord: Sendable, Equatable {
    package enum Kind: UInt8, Sendable {
        /// The object itself (`FAN_EVENT_INFO_TYPE_FID`): the file an event on a file is about.
        case object = 1
        /// A directory and an entry's name in it (`DFID_NAME`); the name is "." when the
        /// event is about the directory itself.
        case directoryName = 2
        /// A directory without a name (`DFID`).
        case directory = 3
        /// A rename's old directory and name (`OLD_DFID_NAME`).
        case oldDirectoryName = 10
        /// A rename's new directory and name (`NEW_DFID_NAME`).
        case newDirectoryName = 12

        var hasName: Bool { self == .directoryName || self == .oldDirectoryName || self == .newDirectoryName }
    }

    package var kind: Kind
    package var handle: FileHandleKey
    package var name: [UInt8]

    package init(kind: Kind, handle: FileHandleKey, name: [UInt8] = []) {
        self.kind = kind
        self.handle = handle
        self.name = name
    }

    /// Whether this names the directory itself rather than an entry in it.
    package var isSelf: Bool { name.isEmpty || name == [UInt8(ascii: ".")] }

    static let headerLength = 4
    /// Header, fsid (8), then `struct file_handle`'s `handle_bytes` and `handle_type`.
    static let handleOffset = 4 + 8 + 8

    /// Decodes the records in `bytes[start..<end]`, which the caller has checked lies in the
    /// buffer.
    static func decode(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, into records: inout [Self]) {
        var offset = start
        while offset + headerLength <= end {
            let type = bytes[offset]
            let length = Int(bytes.word16(offset + 2))
            guard length >= headerLength, length <= end - offset else { return }
            if let kind = Kind(rawValue: type), let record = decodeHandle(bytes, kind: kind, at: offset, length: length)
            {
                records.append(record)
            }
            offset += length
        }
    }

    private static func decodeHandle(
        _ bytes: UnsafeRawBufferPointer, kind: Kind, at offset: Int, length: Int
    ) -> FanotifyRecord? {
        guard length >= handleOffset else { return nil }
        let fileSystem = UInt64(bytes.word32(offset + 4)) | UInt64(bytes.word32(offset + 8)) << 32
        let handleLength = Int(bytes.word32(offset + 12))
        let type = Int32(bitPattern: bytes.word32(offset + 16))
        let handleStart = offset + handleOffset
        guard handleLength <= length - handleOffset else { return nil }
        let handle = FileHandleKey(
            fileSystem: fileSystem, type: type,
            raw: UnsafeRawBufferPointer(rebasing: bytes[handleStart..<handleStart + handleLength]))
        var name: [UInt8] = []
        if kind.hasName {
            let nameStart = handleStart + handleLength
            var nameEnd = nameStart
            let recordEnd = offset + length
            while nameEnd < recordEnd && bytes[nameEnd] != 0 { nameEnd += 1 }
            name = Array(bytes[nameStart..<nameEnd])
        }
        return FanotifyRecord(kind: kind, handle: handle, name: name)
    }
}

extension UnsafeRawBufferPointer {
    func word16(_ at: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }
    func word32(_ at: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    func word64(_ at: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }
}
