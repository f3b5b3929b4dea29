import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// ``InotifyBackend``'s reader: a thread that does nothing but drain the kernel's inotify
/// queue, handing each batch on as ``FileSystemChange``s (the one place an inotify event
/// becomes a change), so the queue never overflows while the engine is busy (a stalled reader overflows the
/// default 16 384-event queue after about 5 500 new files).
///
/// The reader owns the inotify descriptor from ``start(changes:failed:)`` on: ``stop()`` joins
/// the thread and closes it, which also drops every watch.
final class InotifyReader: Sendable {
    private let inotify: InotifyDescriptor
    private let wakeup: WakeupPipe
    private let thread = Mutex<JoinableThread?>(nil)
    private let isClosed = Atomic<Bool>(false)

    init(inotify: InotifyDescriptor) throws(Errno) {
        self.inotify = inotify
        wakeup = try WakeupPipe()
    }

    /// Starts the thread: each batch goes to `changes`, a failure that ends it to `failed`.
    func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void
    ) {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = JoinableThread(name: "inotify-reader") { [self] in run(changes: changes, failed: failed) }
        }
    }

    /// Ends the thread, waits for it, and closes the inotify descriptor and the wake-up pipe.
    /// Calling it again does nothing.
    func stop() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeup.wake()
        thread.withLock { $0 }?.join()
        inotify.close()
        wakeup.close()
    }

    /// Batches smaller than this are followed by a pause of `gatherMilliseconds`.
    static let smallBatch = 4096
    static let gatherMilliseconds: Int32 = 2
    /// How long without events before free memory is returned to the kernel.
    static let quietMilliseconds: Int32 = 1000

    private func run(changes: ([FileSystemChange]) -> Void, failed: (Errno) -> Void) {
        // Large enough for thousands of events per read: fewer system calls under a storm.
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        // Set by every batch: once events have stopped for a while, the memory their storm
        // left free goes back to the kernel, so the daemon's RSS returns to what it holds.
        var trimDue = false
        while true {
            let ready: [Int]
            do {
                ready = try Readiness.wait(
                    for: [inotify.descriptor, wakeup.readEnd],
                    timeoutMilliseconds: trimDue ? Self.quietMilliseconds : -1)
            } catch {
                failed(error)
                return
            }
            if ready.contains(1) { return }
            if ready.isEmpty {
                MemoryTuning.returnFreeMemory()
                trimDue = false
                continue
            }
            // Each event becomes a change as it is decoded: no second array of the batch.
            var batch: [FileSystemChange] = []
            do {
                while try inotify.readEvents(buffer: &buffer, { batch.append(FileSystemChange($0)) }) {
                    if batch.count > 65536 { break }
                }
            } catch {
                failed(error)
                return
            }
            guard !batch.isEmpty else { continue }
            changes(batch)
            trimDue = true
            // Under a storm the queue holds a few events whenever we look: handing each few
            // over costs two thread wake-ups, more than applying them. Letting the kernel
            // gather for a moment turns thousands of hand-offs a second into a few hundred
            // (the queue takes over 16 000 events; a storm adds about 100 a millisecond).
            // A lone event still goes at once: the pause comes after a batch, not before.
            if batch.count < Self.smallBatch {
                do {
                    if try !Readiness.wait(for: [wakeup.readEnd], timeoutMilliseconds: Self.gatherMilliseconds).isEmpty
                    {
                        return
                    }
                } catch {
                    failed(error)
                    return
                }
            }
        }
    }
}
