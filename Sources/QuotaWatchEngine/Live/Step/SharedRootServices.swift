import QuotaWatchSystem
import Synchronization

/// What a process serving several roots (`run ROOT ROOT…`) runs once for all of them rather
/// than once per root: the `--events` writer on standard output, and the thread that waits for
/// the mount table to change (each root's engine still reads the table and follows its own
/// mounts). Each was a thread per root: with 1 000 roots, 2 000 threads whose stacks alone held
/// about 45 MiB, and as many descriptors on `/proc/self/mountinfo`.
///
/// Made once per process and handed to every root's ``EngineOptions``; ``stop()`` comes after
/// every root has stopped. A process serving one root has none and starts its own.
package final class SharedRootServices: Sendable {
    private let state = Mutex(State())

    private struct State {
        var events: LineWriter?
        var mounts: MountTable?
        var mountsThread: JoinableThread?
        var mailboxes: [ObjectIdentifier: Mailbox] = [:]
    }

    package init() {}

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
