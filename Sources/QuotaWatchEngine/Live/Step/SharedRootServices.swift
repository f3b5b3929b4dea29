import Dispatch
import QuotaWatchSystem
import Synchronization

/// What a process serving several roots (`run ROOT ROOT…`) runs once for all of them rather
/// than once per root: the `--events` writer on standard output, and the thread that waits for
/// the mount table to change (each root's engine still reads the table and follows its own
/// mounts). Each was a thread per root: with 1 000 roots, 2 000 threads whose stacks alone held
/// about 45 MiB, and as many descriptors on `/proc/self/mountinfo`.
///
/// And the roots' turns at their first crawl (``beginCrawl()``): a few at a time, not every
/// root at once. 1 000 roots starting together were 2 000 crawling threads on two cores, each
/// root's crawl fighting the others for the shared backend's lock and each root's end
/// trimming the allocator's every arena while the rest filled them (start-up 4.7× one root
/// holding the same files; docs/BENCHMARKS.md, "roots start-up").
///
/// Made once per process and handed to every root's ``EngineOptions``; ``stop()`` comes after
/// every root has stopped. A process serving one root has none and starts its own.
package final class SharedRootServices: Sendable {
    private let state = Mutex(State())
    /// One per crawl allowed at once; a root waits in turn for one (FIFO, one woken per release).
    private let crawlSlots: DispatchSemaphore
    /// Roots between ``beginCrawl()`` and ``endCrawl()``, waiting or crawling.
    private let crawlsUnderway = Mutex(0)

    private struct State {
        var events: LineWriter?
        var mounts: MountTable?
        var mountsThread: JoinableThread?
        var mailboxes: [ObjectIdentifier: Mailbox] = [:]
    }

    /// - Parameter concurrentCrawls: roots crawled at once; each crawl has its own workers
    ///   (`--workers`), so the default, the processors, keeps every one of them busy.
    package init(concurrentCrawls: Int = CrawlOptions().workers) {
        crawlSlots = DispatchSemaphore(value: max(1, concurrentCrawls))
    }

    /// Blocks until this root may crawl; ``endCrawl()`` gives the turn on.
    func beginCrawl() {
        crawlsUnderway.withLock { $0 += 1 }
        crawlSlots.wait()
    }

    /// Roots between ``beginCrawl()`` and ``endCrawl()`` now (for tests).
    var crawlsWaitingOrUnderway: Int { crawlsUnderway.withLock { $0 } }

    /// Gives the turn to the next root waiting. True when no other root is crawling or waiting
    /// to: the moment to hand the crawls' freed memory back to the kernel, once for all of them
    /// rather than once per root (a walk of every arena each time).
    func endCrawl() -> Bool {
        // Counted out before the slot is given on: a root woken by it and ending at once must
        // not find this one still counted, and neither would be told it was last.
        let wasLast = crawlsUnderway.withLock { underway in
            underway -= 1
            return underway == 0
        }
        crawlSlots.signal()
        return wasLast
    }

    /// The one writer of every root's `--events` lines, started by the first root that asks.
    func events() -> LineWriter {
        state.withLock { state in
            if let events = state.events { return events }
            let events = LineWriter(descriptor: .standardOutput)
            state.events = events
            return events
        }
    }

    /// Posts ``EngineMessage/mountsChanged`` to `mailbox` at each change of the mount table,
    /// until ``unfollowMounts(_:)``. False when the table cannot be watched.
    func followMounts(_ mailbox: Mailbox) -> Bool {
        state.withLock { state in
            if state.mounts == nil {
                guard let table = try? MountTable() else { return false }
                state.mounts = table
                state.mountsThread = JoinableThread(name: "mounts", inheritsSubject: false) { [self] in
                    while (try? table.waitForChange()) == true {
                        for mailbox in self.state.withLock({ Array($0.mailboxes.values) }) {
                            mailbox.post(.mountsChanged)
                        }
                    }
                }
            }
            state.mailboxes[ObjectIdentifier(mailbox)] = mailbox
            return true
        }
    }

    func unfollowMounts(_ mailbox: Mailbox) {
        _ = state.withLock { $0.mailboxes.removeValue(forKey: ObjectIdentifier(mailbox)) }
    }

    /// Writes the lines still queued and ends both threads: after every root has stopped.
    package func stop() {
        let (events, mounts, thread) = state.withLock { ($0.events, $0.mounts, $0.mountsThread) }
        events?.stop()
        mounts?.stop()
        thread?.join()
        mounts?.close()
    }
}
