import Glibc
import QuotaWatchSystem
import Testing

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
        #expect(writers.writers[try identity(scratch.file("written"))]?.processID == getpid())
        #expect(writers.writers[try identity(scratch.file("read"))] == nil)
        // The cached check agrees with the one-file check.
        let cached = OpenWritersSnapshot()
        #expect(try cached.check(try identity(scratch.file("written"))).writer?.processID == getpid())
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
        #expect(try cached.check(late).writer?.processID == getpid())
    }
}
