import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@Suite("File system space and open writers")
struct FileSystemSpaceTests {
    @Test("statvfs of a directory's file system is ordered as df shows it, and its size is df's")
    func space() throws {
        let scratch = try ScratchDirectory()
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(scratch.path.bytes)
        defer { directory.close() }
        let space = try directory.fileSystemSpace()
        #expect(space.totalBytes > 0)
        #expect(space.availableBytes <= space.freeBytes)
        #expect(space.freeBytes <= space.totalBytes)
        #expect((0.0...1.0).contains(space.availableFraction))

        let outcome = try ChildProcess.run(
            ChildProcess.Request(
                arguments: ["df", "-B1", "--output=size", scratch.path].map(\.bytes),
                environment: ["PATH=/usr/bin:/bin".bytes], standardOutput: .appending(to: scratch.file("df").bytes)),
            timeout: .seconds(20))
        guard outcome.termination == .exited(status: 0) else {
            Issue.record("df failed: \(String(decoding: outcome.standardErrorTail, as: UTF8.self))")
            return
        }
        let size = try scratch.contents("df").split(separator: "\n").last.flatMap {
            UInt64($0.trimmingCharacters(in: .whitespaces))
        }
        #expect(size == space.totalBytes)
    }

    @Test("a file this process holds open for writing is found; one held read-only is not")
    func openWriters() throws {
        let scratch = try ScratchDirectory()
        let written = open(scratch.file("download.tmp"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let read = open(scratch.file("done.tmp"), O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer {
            close(written)
            close(read)
        }
        #expect(written >= 0 && read >= 0)
        let writtenStatus = try FileDescriptor(rawValue: written).status()
        let readStatus = try FileDescriptor(rawValue: read).status()

        let writer = try OpenWriters.first(device: writtenStatus.device, inode: writtenStatus.inode)
        #expect(writer.map { isThisProcessOrItsChild($0.processID) } == true, "\(String(describing: writer))")
        if writer?.processID == getpid() { #expect(writer?.access == .descriptor(written)) }
        #expect(try OpenWriters.first(device: readStatus.device, inode: readStatus.inode) == nil)
    }

    @Test("a read-write descriptor counts as a writer, and closing it ends that")
    func readWriteThenClosed() throws {
        let scratch = try ScratchDirectory()
        let descriptor = open(scratch.file("partial"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        let status = try FileDescriptor(rawValue: descriptor).status()
        let writer = try OpenWriters.first(device: status.device, inode: status.inode)
        #expect(writer.map { isThisProcessOrItsChild($0.processID) } == true, "\(String(describing: writer))")
        close(descriptor)
        #expect(try OpenWriters.first(device: status.device, inode: status.inode) == nil)
    }
}
