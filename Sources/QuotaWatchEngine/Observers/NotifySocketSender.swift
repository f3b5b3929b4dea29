import Foundation
import QuotaWatchSystem

/// Sends notify messages to the service manager on a thread of its own, so that the engine
/// only appends to a queue: `sd_notify` writes a datagram on a blocking socket, and a manager
/// that reads slowly would hold up whoever sends.
///
/// The queue keeps the newest 32 messages; an older one is dropped (a status superseded, a
/// ping the manager would not have needed: the next one follows within half a period).
final class NotifySocketSender: ServiceMessageSink, Sendable {
    static let capacity = 32
    /// How long ``finish()`` waits for the last messages (`STOPPING=1`) to go out.
    static let finishTimeout: Duration = .seconds(2)

    private struct Outbox {
        var queue: [String] = []
        var sending = false
        var isFinishing = false
    }

    private let outbox = BlockingState(Outbox())
    private let thread: JoinableThread

    init() {
        thread = JoinableThread(name: "sd-notify", inheritsSubject: false) { [outbox] in Self.run(outbox) }
    }

    func post(_ message: String) {
        outbox.withLockWakingWaiters { outbox in
            guard !outbox.isFinishing else { return }
            if outbox.queue.count >= Self.capacity { outbox.queue.removeFirst() }
            outbox.queue.append(message)
        }
    }

    func finish() {
        outbox.withLockWakingWaiters { $0.isFinishing = true }
        let drained = outbox.waitUntil(deadline: .now + Self.finishTimeout) { $0.queue.isEmpty && !$0.sending }
        // A send still blocked after the timeout is left to end with the process.
        if drained { thread.join() }
    }

    private static func run(_ outbox: BlockingState<Outbox>) {
        var reportedFailure = false
        while true {
            // nil: nothing yet, wait; .some(nil): finishing with nothing left.
            let next = outbox.wait { outbox -> String?? in
                if outbox.queue.isEmpty { return outbox.isFinishing ? .some(nil) : nil }
                outbox.sending = true
                return outbox.queue.removeFirst()
            }
            guard let message = next ?? nil else { return }
            send(message, reportedFailure: &reportedFailure)
            outbox.withLockWakingWaiters { $0.sending = false }
        }
    }

    private static func send(_ message: String, reportedFailure: inout Bool) {
        do {
            _ = try ServiceManager.notify(message)
        } catch {
            // Said once: a manager that went away would otherwise fill the log every second.
            if !reportedFailure {
                reportedFailure = true
                Log.warning("cannot notify the service manager at NOTIFY_SOCKET: \(error)")
            }
        }
    }
}
