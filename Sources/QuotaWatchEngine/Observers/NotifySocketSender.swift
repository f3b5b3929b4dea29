import Foundation
import QuotaWatchSystem

/// Sends notify messages to the service manager on a thread of its own, so that the engine
/// only appends to a queue: `sd_notify` writes a datagram on a blocking socket, and a manager
/// that reads slowly would hold up whoever sends.
///
/// The queue keeps the newest 32 messages; an older one is dropped (a status superseded, a
/// ping the manager would not have needed: the next one follows within half a period).
final class NotifySocketSender: ServiceMessageSink, @unchecked Sendable {
    static let capacity = 32
    /// How long ``finish()`` waits for the last messages (`STOPPING=1`) to go out.
    static let finishTimeout: TimeInterval = 2

    // `queue`, `sending` and `isFinishing` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var queue: [String] = []
    private var sending = false
    private var isFinishing = false
    private var thread: JoinableThread?
    private var reportedFailure = false

    init() {
        thread = JoinableThread(name: "sd-notify") { [self] in run() }
    }

    func post(_ message: String) {
        condition.lock()
        defer { condition.unlock() }
        guard !isFinishing else { return }
        if queue.count >= Self.capacity { queue.removeFirst() }
        queue.append(message)
        condition.broadcast()
    }

    func finish() {
        condition.lock()
        isFinishing = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: Self.finishTimeout)
        var drained = true
        while !queue.isEmpty || sending {
            if !condition.wait(until: deadline) {
                drained = false
                break
            }
        }
        condition.unlock()
        // A send still blocked after the timeout is left to end with the process.
        if drained { thread?.join() }
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !isFinishing { condition.wait() }
            guard !queue.isEmpty else {
                condition.unlock()
                return
            }
            let message = queue.removeFirst()
            sending = true
            condition.unlock()
            send(message)
            condition.lock()
            sending = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private func send(_ message: String) {
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
