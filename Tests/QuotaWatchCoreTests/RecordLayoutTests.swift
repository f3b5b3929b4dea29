import Testing

@testable import QuotaWatchCore

/// The per-file cost the README promises is the file record's size: a field added to it, or
/// reordered so padding creeps in, shows here rather than in an RSS measurement later.
@Suite("Record layout")
struct RecordLayoutTests {
    @Test("a file record is 40 bytes, with no padding, and packs into an array at 40")
    func fileRecordIsFortyBytes() {
        #expect(MemoryLayout<FileRecord>.size == 40)
        #expect(MemoryLayout<FileRecord>.stride == 40)
        #expect(MemoryLayout<FileRecord>.alignment == 8)
    }

    @Test("the packed word keeps 48 bits of blocks, 8 of name length and the link flag apart")
    func packedFieldsDoNotOverlap() {
        var record = FileRecord(
            apparent: 0, inode: 0, packed: 0, directory: 0, nextSibling: 0, previousSibling: 0, nameOffset: 0)
        record.allocatedBlocks = FileRecord.blockMask
        record.nameLength = 255
        record.isLinked = true
        #expect(record.allocatedBlocks == FileRecord.blockMask)
        #expect(record.nameLength == 255)
        #expect(record.isLinked)
        record.allocatedBlocks = 0
        #expect(record.nameLength == 255 && record.isLinked)
        record.isLinked = false
        record.nameLength = 0
        #expect(record.packed == 0)
    }
}
