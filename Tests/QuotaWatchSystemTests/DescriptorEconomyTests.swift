import Glibc
import QuotaWatchSystem
import Testing

/// What keeps the daemon working short of descriptors: wake-ups of one descriptor, a spare
/// held in reserve, and a sync marker made without opening anything.
@Suite("descriptor economy")
struct DescriptorEconomyTests {
    @Test("a wake-up event is readable from wake() to drain(), however many wake-ups came")
    func wakeupEvent() throws {
        let event = try WakeupEvent()
        defer { event.close() }
        #expect(try Readiness.wait(for: [event.descriptor], timeoutMilliseconds: 0).isEmpty)
        event.wake()
        event.wake()
        #expect(try Readiness.wait(for: [event.descriptor], timeoutMilliseconds: 0) == [0])
        event.drain()
        #expect(try Readiness.wait(for: [event.descriptor], timeoutMilliseconds: 0).isEmpty)
    }

    @Test("the spare is released once, for the connection that needs it, and held again by retake")
    func spareDescriptor() throws {
        var spare = try SpareDescriptor()
        defer { spare.close() }
        #expect(spare.isHeld)
        let released = spare.release()
        #expect(released)
        #expect(!spare.isHeld)
        let releasedAgain = spare.release()
        #expect(!releasedAgain, "a spare released twice")
        spare.retake()
        #expect(spare.isHeld)
    }

    @Test("the spare is made and taken back without opening any path: a chroot may have no /dev/null")
    func spareOpensNoPath() throws {
        let faults = FaultPlan()
        faults.fail(.openat, with: .noSuchFileOrDirectory)
        faults.fail(.openat2, with: .noSuchFileOrDirectory)
        var spare = try faults.arm { () throws(Errno) in
            var spare = try SpareDescriptor()
            _ = spare.release()
            spare.retake()
            return spare
        }
        defer { spare.close() }
        #expect(spare.isHeld)
        #expect(faults.calls(.openat).isEmpty && faults.calls(.openat2).isEmpty, "\(faults.trace)")
    }

    @Test("an exclusive file is made owner-only without a descriptor, and never over a name or through a symlink")
    func exclusiveFile() throws {
        let scratch = try ScratchDirectory()
        let directory = FileDescriptor(rawValue: open(scratch.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        defer { directory.close() }
        try directory.createExclusiveFile("marker".bytes)
        var status = stat()
        #expect(stat(scratch.file("marker"), &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(status.st_size == 0)
        #expect(status.st_mode & 0o077 == 0, "mode \(String(status.st_mode & 0o7777, radix: 8))")
        #expect(throws: Errno.fileExists) { try directory.createExclusiveFile("marker".bytes) }
        #expect(symlink(scratch.file("target"), scratch.file("link")) == 0)
        #expect(throws: Errno.fileExists) { try directory.createExclusiveFile("link".bytes) }
        #expect(access(scratch.file("target"), F_OK) != 0, "the symlink was followed")
    }
}
