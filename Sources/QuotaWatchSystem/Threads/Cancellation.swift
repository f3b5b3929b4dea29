import Synchronization

/// Asks work on another thread to stop: a cleaner past its timeout, a call of a stopping
/// runner. Nothing is interrupted: the work looks at ``isCancelled`` between its steps, and
/// a thread blocked waiting registers with ``onCancel(_:)`` what ends its wait.
package final class Cancellation: Sendable {
    private struct State {
        var cancelled = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Throws `CancellationError` once cancelled: for work that stops between steps.
    package func check() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Cancels, running every handler registered so far (on the calling thread); once only.
    package func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when cancelled: at once, on this thread, if already cancelled.
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.handlers.append(handler)
            return false
        }
        if already { handler() }
    }
}
