/// What the reader needs to know of one fanotify event before deciding whether to decode it:
/// read in place from the buffer, without an allocation, so that an event elsewhere on the
/// file system (most of what a filesystem mark reports) is judged for the price of a few
/// loads and one table lookup.
package struct FanotifyEventPeek {
    package var mask: FanotifyMask
    /// The record ``FanotifyTranslator`` takes the event's directory from: the first
    /// `DFID_NAME`, else the first `DFID`, as a handle still in the buffer.
    package var directory: RawHandle?
    /// The first `FID` record's handle: the file an event on a file is about.
    package var object: RawHandle?
    /// The whole event, for ``FanotifyEvent/decode(raw:into:)`` when it must be decoded.
    package var bytes: UnsafeRawBufferPointer

    /// A handle as it sits in an event record.
    package struct RawHandle {
        package var fileSystem: UInt64
        package var type: Int32
        package var bytes: UnsafeRawBufferPointer

        package var key: FileHandleKey { FileHandleKey(fileSystem: fileSystem, type: type, raw: bytes) }
    }

    /// Calls `body` for each whole event in `bytes`, with the same bounds checks as
    /// ``FanotifyEvent/decode(raw:into:)``: the events it passes are the ones `decode` returns,
    /// and a record `decode` would skip is not looked at.
    package static func forEach(in bytes: UnsafeRawBufferPointer, _ body: (FanotifyEventPeek) -> Void) {
        var offset = 0
        while offset + FanotifyEvent.metadataLength <= bytes.count {
            let length = Int(bytes.word32(offset))
            let version = bytes[offset + 4]
            let metadata = Int(bytes.word16(offset + 6))
            guard version == FanotifyEvent.metadataVersion, metadata >= FanotifyEvent.metadataLength,
                length >= metadata, length <= bytes.count - offset
            else { return }
            var peek = FanotifyEventPeek(
                mask: FanotifyMask(rawValue: bytes.word64(offset + 8)), directory: nil, object: nil,
                bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            peek.readRecords(bytes, from: offset + metadata, to: offset + length)
            body(peek)
            offset += length
        }
    }

    private mutating func readRecords(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        var offset = start
        var bareDirectory: RawHandle?
        while offset + FanotifyRecord.headerLength <= end {
            let type = bytes[offset]
            let length = Int(bytes.word16(offset + 2))
            guard length >= FanotifyRecord.headerLength, length <= end - offset else { break }
            if let kind = FanotifyRecord.Kind(rawValue: type),
                let handle = Self.handle(bytes, at: offset, length: length)
            {
                switch kind {
                case .directoryName where directory == nil: directory = handle
                case .directory where bareDirectory == nil: bareDirectory = handle
                case .object where object == nil: object = handle
                default: break
                }
            }
            offset += length
        }
        if directory == nil { directory = bareDirectory }
    }

    private static func handle(_ bytes: UnsafeRawBufferPointer, at offset: Int, length: Int) -> RawHandle? {
        guard length >= FanotifyRecord.handleOffset else { return nil }
        let handleLength = Int(bytes.word32(offset + 12))
        guard handleLength <= length - FanotifyRecord.handleOffset else { return nil }
        let start = offset + FanotifyRecord.handleOffset
        return RawHandle(
            fileSystem: UInt64(bytes.word32(offset + 4)) | UInt64(bytes.word32(offset + 8)) << 32,
            type: Int32(bitPattern: bytes.word32(offset + 16)),
            bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<start + handleLength]))
    }
}
