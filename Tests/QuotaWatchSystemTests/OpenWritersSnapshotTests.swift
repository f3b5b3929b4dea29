import Glibc
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchSystem

@Suite("open writers: one /proc pass for many files")
struct OpenWritersSnapshotTests {
    private func identity(_ path: String) throws -> FileIdentity {
        var status = stat()
        guard stat(path, &status) == 0 else { throw Errno(rawValue: errno) }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    @Test("a file open for writing is in the snapshot with this process, one open for reading is not")
    func snapshot() throws {
        let scratch = try ScratchDirectory()
        let written = open(scratch.file("written"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        let read = open(scratch.file("read"), O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        defer {
            close(written)
            close(read)
        }
        #expect(written >= 0 && read >= 0)
        let writers = try OpenWriters.snapshot()
        #expect(
            writers.writers[try identity(scratch.file("written"))].map { isThisProcessOrItsChild($0.processID) } == true
        )
        #expect(writers.writers[try identity(scratch.file("read"))] == nil)
        // The cached check agrees with the one-file check.
        let cached = OpenWritersSnapshot()
        #expect(
            try cached.check(try identity(scratch.file("written"))).writer.map { isThisProcessOrItsChild($0.processID) }
                == true)
        #expect(try cached.check(try identity(scratch.file("read"))).writer == nil)
        #expect(
            try OpenWriters.first(
                device: try identity(scratch.file("read")).device, inode: try identity(scratch.file("read")).inode)
                == nil)
    }

    @Test("a reading older than its maximum age is taken again")
    func refresh() throws {
        let scratch = try ScratchDirectory()
        let descriptor = open(scratch.file("late"), O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        close(descriptor)
        let late = try identity(scratch.file("late"))
        let cached = OpenWritersSnapshot(maximumAge: .zero)
        #expect(try cached.check(late).writer == nil)
        let writer = open(scratch.file("late"), O_WRONLY | O_CLOEXEC)
        defer { close(writer) }
        #expect(try cached.check(late).writer.map { isThisProcessOrItsChild($0.processID) } == true)
    }
}

@Suite("/proc/PID/maps lines")
struct MapsLineTests {
    @Test("only shared writable file mappings count, with the device in st_dev's encoding")
    func sharedWritable() {
        let text = """
            7f00-7f10 rw-s 00000000 08:02 1234                       /data/app/db-shm
            7f10-7f20 rw-p 00000000 08:02 1235                       /data/app/private
            7f20-7f30 r--s 00000000 08:02 1236                       /data/app/read-only
            7f30-7f40 rw-s 00000000 00:01 0                          /dev/zero (deleted)
            7f40-7f50 rw-s 00001000 103:0a 99                        /big/major
            7f50-7f60 rw-s 00000000 08:02 77
            """
        let bytes = Array(text.utf8)
        let (files, consumed) = bytes.withUnsafeBufferPointer { MapsLine.sharedWritableFiles(in: $0) }
        // The last line has no newline yet: it waits for the next read.
        #expect(consumed == bytes.count - "7f50-7f60 rw-s 00000000 08:02 77".utf8.count)
        #expect(
            files == [
                FileIdentity(device: 0x802, inode: 1234), FileIdentity(device: (0x103 << 8) | 0x0a, inode: 99),
            ])
        #expect(MapsLine.deviceNumber(major: 0x1234, minor: 0x12345) == 0x1000_1232_3445)
    }
}
