import Foundation
import QuotaWatchCore
import QuotaWatchSystem

/// What reaches the engine thread. Everything the engine owns changes only in response to one
/// of these, on that one thread.
enum EngineMessage: @unchecked Sendable {
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
    /// A hook run failed (reported from the hook's own thread).
    case hookFailed(HookFailure)
    /// A cleanup run ended (its summary, from the runner's task).
    case cleanupFinished(CleanupSummary)
    /// The mount table changed (``MountFollower``).
    case mountsChanged
}

/// A queue of messages for the engine thread, with a timed wait so the engine can also
/// run its timers.
final class Mailbox: @unchecked Sendable {
    // `messages` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var messages: [EngineMessage] = []
    private var reloadRequested = false

    func post(_ message: EngineMessage) {
        condition.lock()
        messages.append(message)
        condition.signal()
        condition.unlock()
    }

    /// A SIGHUP: sets a flag rather than queueing a message, so a storm of signals costs one
    /// reload however many came before the engine looked.
    func requestReload() {
        condition.lock()
        reloadRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Everything posted so far, waiting until `deadline` (or forever) if nothing is.
    func take(until deadline: ContinuousClock.Instant?) -> [EngineMessage] {
        condition.lock()
        defer { condition.unlock() }
        while messages.isEmpty && !reloadRequested {
            guard let deadline else {
                condition.wait()
                continue
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return [] }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        // Taken, not copied, so the queue does not keep a storm's peak capacity.
        var taken: [EngineMessage] = []
        swap(&taken, &messages)
        if reloadRequested {
            taken.append(.reload)
            reloadRequested = false
        }
        return taken
    }
}
