import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// The reader thread inherits the plan armed where it was started: EINTR and EAGAIN on its
/// read of the inotify queue neither stop it nor lose an event.
@Suite("InotifyReader under injected read faults")
struct InotifyReaderFaultTests {
    @Test("EINTR and a spurious EAGAIN on the reader thread's read: the events still arrive")
    func readerSurvivesInterruptAndAgain() throws {
        let temp = try TempTree()
        let inotify = try InotifyDescriptor()
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(temp.absoluteBytes(.root))
        defer { directory.close() }
        _ = try inotify.addWatch(directory, mask: [.create])
        try temp.makeDirectory("made-before-the-reader")
        let mailbox = Mailbox()
        let reader = try InotifyReader(inotify: inotify, mailbox: mailbox)
        let faults = FaultPlan()
        let queue = inotify.descriptor.rawValue
        faults.fail(.read, with: .interrupted, times: 2, descriptor: queue)
        faults.fail(.read, with: .resourceTemporarilyUnavailable, times: 1, descriptor: queue)
        faults.arm { reader.start() }
        defer { reader.stop() }
        var names: [[UInt8]] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while names.isEmpty && ContinuousClock.now < deadline {
            for case .events(let events) in mailbox.take(until: deadline) { names += events.map(\.name) }
        }
        #expect(names == [Array("made-before-the-reader".utf8)])
        let reads = faults.calls(.read).filter { $0.descriptor == queue }.map(\.injected)
        #expect(Array(reads.prefix(4)) == [.interrupted, .interrupted, .resourceTemporarilyUnavailable, nil])
    }
}
