import QuotaWatchCore
import QuotaWatchSystem

/// What reaches the engine thread. Everything the engine owns changes only in response to one
/// of these, on that one thread.
enum EngineMessage: Sendable {
    /// What a backend's reader saw, already in the neutral shape the tree applies.
    case events([FileSystemChange])
    /// Files changed through names outside the tree (the fanotify backend's file handles).
    case filesChanged([ChangedFile])
    case request(ControlRequest, ControlReply)
    case shutdown(signal: Int32)
    /// SIGHUP: read the config file again. Never queued: ``Mailbox/requestReload()`` sets a
    /// flag, and a take hands over one `reload` for every SIGHUP since the last.
    case reload
    /// ``LiveEngine/stop()`` was called.
    case stop
    case readerFailed(Errno)
    /// A message an ``EngineParticipant`` posted from its own thread, for that participant
    /// (by its place in ``EngineOptions/participants``): a failed hook run, say.
    case participant(Int, any Sendable)
    /// The mount table changed (``MountFollower``).
    case mountsChanged
}

/// A queue of messages for the engine thread, with a timed wait so the engine can also
/// run its timers.
///
/// Changes need not wake the engine before its next flush may come: they count from a flush
/// on, and the engine wakes for that moment anyway (``EngineSchedule/earliestFlush``). In a burst the reader hands over a
/// batch every few milliseconds and the flush comes every 20: waking the engine for each batch
/// was a futex wake-up and two context switches per batch, a fifth of the daemon's CPU. Every
/// other message (a request, a signal, a failure) wakes it at once.
final class Mailbox: Sendable {
    private struct Inbox {
        var messages: [EngineMessage] = []
        var reloadRequested = false
        /// Set by a take that waits with `changesMayWait`: changes posted meanwhile are left
        /// for its deadline. Stale once the take has returned, which is harmless: nobody is
        /// blocked to be woken, and the next take looks at the messages before it blocks.
        var changesMayWait = false
    }

    private let inbox = BlockingState(Inbox())

    func post(_ message: EngineMessage) {
        switch message {
        case .events, .filesChanged:
            let mayWait = inbox.withLock { inbox in
                inbox.messages.append(message)
                return inbox.changesMayWait
            }
            if !mayWait { inbox.wakeWaiters() }
        default:
            inbox.withLockWakingWaiters { $0.messages.append(message) }
        }
    }

    /// A SIGHUP: sets a flag rather than queueing a message, so a storm of signals costs one
    /// reload however many came before the engine looked.
    func requestReload() {
        inbox.withLockWakingWaiters { $0.reloadRequested = true }
    }

    /// Whether a take is waiting, or last waited, with changes left for its deadline (for tests).
    var holdsChanges: Bool { inbox.withLock { $0.changesMayWait } }

    /// Everything posted so far, waiting until `deadline` (or forever) if nothing is. With
    /// `changesMayWait` (and a deadline), changes posted during the wait wait for the deadline.
    func take(until deadline: ContinuousClock.Instant?, changesMayWait: Bool = false) -> [EngineMessage] {
        let taken = inbox.wait(until: deadline) { inbox -> [EngineMessage]? in
            guard !inbox.messages.isEmpty || inbox.reloadRequested else {
                inbox.changesMayWait = changesMayWait && deadline != nil
                return nil
            }
            inbox.changesMayWait = false
            // Taken, not copied, so the queue does not keep a storm's peak capacity.
            var taken: [EngineMessage] = []
            swap(&taken, &inbox.messages)
            if inbox.reloadRequested {
                taken.append(.reload)
                inbox.reloadRequested = false
            }
            return taken
        }
        return taken ?? []
    }
}
