import Foundation
import Glibc
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

@Suite("threads stop cleanly")
struct ThreadStopTests {
    @Test("a stopped inotify reader has joined its thread and closed its descriptor")
    func readerClosesDescriptor() throws {
        let tree = try TempTree(prefix: "qw-reader")
        try tree.makeDirectory("watched")
        let inotify = try InotifyDescriptor()
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(
            tree.absoluteBytes("watched"), followSymlinks: true)
        defer { directory.close() }
        _ = try inotify.addWatch(directory, mask: [.create])
        var status = stat()
        #expect(fstat(directory.rawValue, &status) == 0)
        let inode = UInt64(status.st_ino)
        let fdinfo = "/proc/self/fdinfo/\(inotify.descriptor.rawValue)"
        // The kernel lists each watch with its inode in hex: this is how the test knows the
        // descriptor is this reader's, even if its number is handed out again later.
        let watchLine = "ino:\(String(inode, radix: 16))"
        #expect(String(decoding: try SmallFile.read(fdinfo), as: UTF8.self).contains(watchLine))

        let mailbox = Mailbox()
        let reader = try InotifyBackend(inotify: inotify)
        reader.start(changes: { mailbox.post(.events($0)) }, failed: { mailbox.post(.readerFailed($0)) })
        try tree.writeFile("watched/f", contents: [1])
        #expect(mailbox.take(until: nil).contains { if case .events = $0 { true } else { false } })
        reader.stop()

        let after = (try? SmallFile.read(fdinfo)).map { String(decoding: $0, as: UTF8.self) }
        #expect(after?.contains(watchLine) != true, "the reader's inotify descriptor is still open")
        reader.stop()  // a second stop does nothing
    }

    @Test("a signal waiter returns nil once stopped, even when stopped before it waits")
    func signalWaiterStops() async throws {
        let waiter = try TerminationSignalWaiter()
        defer { waiter.close() }
        let thread = JoinableThread(name: "test-signals") { #expect(waiter.wait() == nil) }
        waiter.stop()
        thread.join()
        #expect(thread.hasFinished)
        #expect(waiter.wait() == nil)
    }

    @Test("an event writer writes everything queued before it stops")
    func lineWriterDrains() throws {
        let pipe = try WakeupPipe()
        defer { pipe.readEnd.close() }
        let writer = LineWriter(descriptor: pipe.writeEnd)
        writer.write("one")
        writer.write("two")
        writer.stop()
        pipe.writeEnd.close()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(pipe.readEnd.rawValue, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == "one\ntwo\n")
    }
}
