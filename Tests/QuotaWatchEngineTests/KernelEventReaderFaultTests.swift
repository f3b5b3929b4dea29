import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// The reader thread inherits the plan armed where it was started: EINTR and EAGAIN on its
/// read of the inotify queue neither stop it nor lose an event.
@Suite("KernelEventReader under injected read faults")
struct KernelEventReaderFaultTests {
    @Test("EINTR and a spurious EAGAIN on the reader thread's read: the events still arrive")
    func readerSurvivesInterruptAndAgain() throws {
        let temp = try TempTree()
        let inotify = try InotifyDescriptor()
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(temp.absoluteBytes(.root))
        defer { directory.close() }
        _ = try inotify.addWatch(directory, mask: [.create])
        try temp.makeDirectory("made-before-the-reader")
        let reader = try KernelEventReader(inotify: inotify)
        let faults = FaultPlan()
        let queue = inotify.descriptor.rawValue
        faults.fail(.read, with: .interrupted, times: 2, descriptor: queue)
        faults.fail(.read, with: .resourceTemporarilyUnavailable, times: 1, descriptor: queue)
        let received = BlockingState<[[UInt8]]>([])
        faults.arm {
            reader.start(
                changes: { changes in received.withLockWakingWaiters { $0 += changes.map(\.name) } },
                failed: { _ in })
        }
        defer { reader.stop() }
        let names = received.wait(until: ContinuousClock.now + .seconds(30)) { $0.isEmpty ? nil : $0 } ?? []
        #expect(names == [Array("made-before-the-reader".utf8)])
        let reads = faults.calls(.read).filter { $0.descriptor == queue }.map(\.injected)
        #expect(Array(reads.prefix(4)) == [.interrupted, .interrupted, .resourceTemporarilyUnavailable, nil])
    }
}
