import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Where a reader takes the kernel's events from: the inotify descriptor, or a fanotify
/// group whose events it translates (``FanotifyEventSource``).
protocol KernelEventSource: Sendable {
    var descriptor: FileDescriptor { get }
    /// Reads what is queued, appending the tree's events and the files changed through names
    /// outside the tree (fanotify only). False when nothing was queued.
    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> Bool
    /// Closes the descriptor, which drops every watch or mark.
    func close()
}

struct KernelEventBatch {
    var events: [InotifyEvent] = []
    var changedFiles: [ChangedFile] = []
}

/// A file the engine did not see by a name in its tree: written, or its link count changed,
/// through a name elsewhere.
struct ChangedFile: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
}

extension InotifyDescriptor: KernelEventSource {
    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> Bool {
        try readEvents(buffer: &buffer, into: &batch.events)
    }
}

/// A thread that does nothing but drain the kernel's event queue into the engine's mailbox,
/// so the queue never overflows while the engine is busy (a stalled reader overflows
/// inotify's default 16 384-event queue after about 5 500 new files).
///
/// The reader owns the descriptor from ``start()`` on: ``stop()`` joins the thread and
/// closes it, which also drops every watch.
final class InotifyReader: Sendable {
    private let source: any KernelEventSource
    private let mailbox: Mailbox
    private let wakeup: WakeupPipe
    private let thread = Mutex<JoinableThread?>(nil)
    private let isClosed = Atomic<Bool>(false)

    convenience init(inotify: InotifyDescriptor, mailbox: Mailbox) throws(Errno) {
        try self.init(source: inotify, mailbox: mailbox)
    }

    init(source: any KernelEventSource, mailbox: Mailbox) throws(Errno) {
        self.source = source
        self.mailbox = mailbox
        wakeup = try WakeupPipe()
    }

    func start() {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = JoinableThread(name: "inotify-reader") { [self] in run() }
        }
    }

    /// Ends the thread, waits for it, and closes the inotify descriptor and the wake-up pipe.
    /// Calling it again does nothing.
    func stop() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeup.wake()
        thread.withLock { $0 }?.join()
        source.close()
        wakeup.close()
    }

    /// Batches smaller than this are followed by a pause of `gatherMilliseconds`.
    static let smallBatch = 4096
    static let gatherMilliseconds: Int32 = 2
    /// How long without events before free memory is returned to the kernel.
    static let quietMilliseconds: Int32 = 1000

    private func run() {
        // Large enough for thousands of events per read: fewer system calls under a storm.
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        // Set by every batch: once events have stopped for a while, the memory their storm
        // left free goes back to the kernel, so the daemon's RSS returns to what it holds.
        var trimDue = false
        while true {
            let ready: [Int]
            do {
                ready = try Readiness.wait(
                    for: [source.descriptor, wakeup.readEnd],
                    timeoutMilliseconds: trimDue ? Self.quietMilliseconds : -1)
            } catch {
                mailbox.post(.readerFailed(error))
                return
            }
            if ready.contains(1) { return }
            if ready.isEmpty {
                MemoryTuning.returnFreeMemory()
                trimDue = false
                continue
            }
            var batch = KernelEventBatch()
            do {
                while try source.read(buffer: &buffer, into: &batch) {
                    if batch.events.count > 65536 { break }
                }
            } catch {
                mailbox.post(.readerFailed(error))
                return
            }
            // Changed files first: a sync marker read in the same batch must not overtake them.
            if !batch.changedFiles.isEmpty { mailbox.post(.filesChanged(batch.changedFiles)) }
            let events = batch.events
            guard !events.isEmpty else { continue }
            mailbox.post(.events(events))
            trimDue = true
            // Under a storm the queue holds a few events whenever we look: handing each few
            // over costs two thread wake-ups, more than applying them. Letting the kernel
            // gather for a moment turns thousands of hand-offs a second into a few hundred
            // (the queue takes over 16 000 events; a storm adds about 100 a millisecond).
            // A lone event still goes at once: the pause comes after a batch, not before.
            if events.count < Self.smallBatch {
                do {
                    if try !Readiness.wait(for: [wakeup.readEnd], timeoutMilliseconds: Self.gatherMilliseconds).isEmpty
                    {
                        return
                    }
                } catch {
                    mailbox.post(.readerFailed(error))
                    return
                }
            }
        }
    }
}
