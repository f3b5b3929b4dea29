import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Where a reader takes the kernel's events from: the inotify descriptor, or a fanotify
/// group whose records it translates (``FanotifyEventSource``).
protocol KernelEventSource: Sendable {
    var descriptor: FileDescriptor { get }
    /// Reads what is queued, appending its changes (and, for fanotify, the files changed
    /// through names outside the tree), and says whether more may be queued.
    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> KernelRead
    /// Closes the descriptor, which drops every watch or mark.
    func close()
}

/// What one read of the kernel's queue found.
enum KernelRead: Equatable {
    /// Nothing was queued.
    case nothing
    /// Events, and room to spare in the buffer: the kernel copies out events while the next
    /// one fits, so the queue was empty when the read ended. Another read now would most
    /// likely say `nothing`; what comes later makes the descriptor readable again.
    case drained
    /// Events up to the buffer's last few KiB: more may be queued.
    case more

    /// No event of either kernel is this long (fanotify's largest, a rename with two
    /// directory handles and names and the file's handle, is about 1 KiB).
    static let largestEvent = 4096

    init(bytes: Int, bufferCount: Int) {
        self = bytes == 0 ? .nothing : bytes <= bufferCount - Self.largestEvent ? .drained : .more
    }
}

/// What one wake-up of the reader found.
struct KernelEventBatch {
    var changes: [FileSystemChange] = []
    var changedFiles: [ChangedFile] = []
}

/// A file changed through a name the changes do not carry (fanotify reports a write through
/// a hard link outside the root, or a link count change, by the file's handle).
package struct ChangedFile: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
}

/// Both backends' reader: a thread that does nothing but drain the kernel's queue (an inotify
/// descriptor, or a fanotify group), handing each batch on as ``FileSystemChange``s made by
/// its ``KernelEventSource``, so the queue never overflows while the engine is busy (a stalled
/// reader overflows inotify's default 16 384-event queue after about 5 500 new files).
///
/// The reader owns its source's descriptor from ``start(changes:failed:)`` on: ``stop()`` joins
/// the thread and closes it, which also drops every watch or mark.
final class KernelEventReader: Sendable {
    private let source: any KernelEventSource
    private let wakeup: WakeupEvent
    private let thread = Mutex<JoinableThread?>(nil)
    private let isClosed = Atomic<Bool>(false)
    private let holdMilliseconds: Int32

    convenience init(inotify: InotifyDescriptor) throws(Errno) {
        try self.init(source: InotifyEventSource(inotify: inotify))
    }

    /// `holdMilliseconds` bounds how long files changed outside the tree wait for a change to
    /// travel with (tests lengthen it to see the hold without a clock).
    init(source: any KernelEventSource, holdMilliseconds: Int32 = KernelEventReader.holdMilliseconds) throws(Errno) {
        self.source = source
        self.holdMilliseconds = holdMilliseconds
        wakeup = try WakeupEvent()
    }

    /// Starts the thread: each batch goes to `changes`, a failure that ends it to `failed`.
    /// `files` gets the files changed through names outside the tree, before the changes read
    /// with or after them (a sync marker among those must not overtake them): held until the
    /// next batch of changes, or `holdMilliseconds` at most.
    func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void,
        files: @escaping @Sendable ([ChangedFile]) -> Void = { _ in },
        failed: @escaping @Sendable (Errno) -> Void
    ) {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = JoinableThread(name: "event-reader", inheritsSubject: false) { [self] in
                run(changes: changes, files: files, failed: failed)
            }
        }
    }

    /// Ends the thread, waits for it, and closes the inotify descriptor and the wake-up event.
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
    /// The pause after a batch with nothing for the tree (fanotify's events elsewhere on the
    /// file system): the wake-ups, not the events, were most of an idle daemon's cost on a busy
    /// file system (about 230 a second beside four builds, each a poll and two reads). A
    /// change in the tree that comes meanwhile waits this long at most.
    static let outsideGatherMilliseconds: Int32 = 10
    /// How long without events before free memory is returned to the kernel.
    static let quietMilliseconds: Int32 = 1000
    /// How long files changed outside the tree wait for a batch of changes to go with. A
    /// filesystem mark (fanotify) reports every write on the file system: without the hold,
    /// each write elsewhere woke the engine for a turn of its own (about 350 turns a second,
    /// 5.7 % of a core, beside the randomized sweep), with it at most 20 a second.
    static let holdMilliseconds: Int32 = 50

    private func run(
        changes: ([FileSystemChange]) -> Void, files: ([ChangedFile]) -> Void, failed: (Errno) -> Void
    ) {
        // Large enough for thousands of events per read: fewer system calls under a storm.
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        // Set by every batch: once events have stopped for a while, the memory their storm
        // left free goes back to the kernel, so the daemon's RSS returns to what it holds.
        var trimDue = false
        // Files changed outside the tree, waiting for the next changes or for `heldUntil`.
        var held: [ChangedFile] = []
        var heldUntil = ContinuousClock.now
        func releaseHeld() {
            files(held)
            held = []
        }
        // Set after a pause for gathering: the queue is read at once, with no `poll` first
        // (under writes elsewhere at full speed there is nearly always something by then).
        var readAtOnce = false
        while true {
            var timeout: Int32 = trimDue ? Self.quietMilliseconds : -1
            if !held.isEmpty {
                let left = ContinuousClock.now.duration(to: heldUntil)
                let milliseconds = max(0, Int32((left / .milliseconds(1)).rounded(.up)))
                timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
            }
            let ready: [Int]
            do {
                ready =
                    readAtOnce
                    ? [0]
                    : try Readiness.wait(for: [source.descriptor, wakeup.descriptor], timeoutMilliseconds: timeout)
            } catch {
                failed(error)
                return
            }
            readAtOnce = false
            if ready.contains(1) { return }
            if ready.isEmpty {
                if !held.isEmpty {
                    if ContinuousClock.now >= heldUntil { releaseHeld() }
                    continue
                }
                MemoryTuning.returnFreeMemory()
                trimDue = false
                continue
            }
            var batch = KernelEventBatch()
            var readSomething = false
            do {
                // A read that left room in the buffer emptied the queue: no second read just to
                // be told EAGAIN (one system call in four of a wake-up for events elsewhere).
                reading: while true {
                    switch try source.read(buffer: &buffer, into: &batch) {
                    case .nothing: break reading
                    case .drained:
                        readSomething = true
                        break reading
                    case .more:
                        readSomething = true
                        if batch.changes.count > 65536 { break reading }
                    }
                }
            } catch {
                failed(error)
                return
            }
            guard readSomething else { continue }
            if !batch.changedFiles.isEmpty {
                if held.isEmpty { heldUntil = ContinuousClock.now + .milliseconds(holdMilliseconds) }
                held += batch.changedFiles
            }
            let events = batch.changes
            if !events.isEmpty {
                if !held.isEmpty { releaseHeld() }
                changes(events)
                trimDue = true
            } else if !held.isEmpty, ContinuousClock.now >= heldUntil {
                // Writes elsewhere that never pause would otherwise hold these for good.
                releaseHeld()
            }
            // Under a storm the queue holds a few events whenever we look: handing each few
            // over costs two thread wake-ups, more than applying them. Letting the kernel
            // gather for a moment turns thousands of hand-offs a second into a few hundred
            // (the queue takes over 16 000 events; a storm adds about 100 a millisecond).
            // A lone event still goes at once: the pause comes after a batch, not before. A
            // batch with nothing for the tree (fanotify's events elsewhere on the file system)
            // is followed by the same pause, so writes elsewhere at full speed cost a few
            // hundred reads a second, not one each.
            if events.count < Self.smallBatch {
                let pause = events.isEmpty ? Self.outsideGatherMilliseconds : Self.gatherMilliseconds
                do {
                    if try !Readiness.wait(for: [wakeup.descriptor], timeoutMilliseconds: pause).isEmpty {
                        return
                    }
                    readAtOnce = true
                } catch {
                    failed(error)
                    return
                }
            }
        }
    }
}
