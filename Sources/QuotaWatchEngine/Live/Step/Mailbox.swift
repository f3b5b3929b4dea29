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
final class Mailbox: Sendable {
    private struct Inbox {
        var messages: [EngineMessage] = []
        var reloadRequested = false
    }

    private let inbox = BlockingState(Inbox())

    func post(_ message: EngineMessage) {
        inbox.withLockWakingWaiters { $0.messages.append(message) }
    }

    /// A SIGHUP: sets a flag rather than queueing a message, so a storm of signals costs one
    /// reload however many came before the engine looked.
    func requestReload() {
        inbox.withLockWakingWaiters { $0.reloadRequested = true }
    }

    /// Everything posted so far, waiting until `deadline` (or forever) if nothing is.
    func take(until deadline: ContinuousClock.Instant?) -> [EngineMessage] {
        let taken = inbox.wait(until: deadline) { inbox -> [EngineMessage]? in
            guard !inbox.messages.isEmpty || inbox.reloadRequested else { return nil }
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
