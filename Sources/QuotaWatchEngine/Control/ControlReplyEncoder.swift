import Dispatch
import QuotaWatchSystem
import Synchronization

/// Encodes the engine's reply documents on a thread of its own, so that neither the engine
/// nor the serving loop spends time on JSON (a large status takes milliseconds, a clean
/// listing stats files). A thread of its own rather than a Dispatch queue: libdispatch traps
/// when it cannot get the descriptor its first work item needs, and a daemon short of
/// descriptors must keep answering.
final class ControlReplyEncoder: Sendable {
    typealias Job = @Sendable () -> Void

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    private struct State {
        var jobs: [Job] = []
        var isStopping = false
        var thread: JoinableThread?
    }

    /// The thread starts with the first job, not before: a daemon serving 1 000 roots held
    /// 1 000 of these threads and their stacks, most of them never asked anything.
    func submit(_ job: @escaping Job) {
        state.withLock { state in
            state.jobs.append(job)
            guard state.thread == nil, !state.isStopping else { return }
            state.thread = JoinableThread(name: "quotawatch-control-encode", stackSize: 512 * 1024) { [self] in
                work()
            }
        }
        ready.signal()
    }

    /// Runs what is queued, then joins the thread.
    func stop() {
        let thread = state.withLock { state in
            state.isStopping = true
            return state.thread
        }
        ready.signal()
        thread?.join()
    }

    private func work() {
        while true {
            ready.wait()
            let (jobs, isStopping) = state.withLock { state in
                defer { state.jobs.removeAll() }
                return (state.jobs, state.isStopping)
            }
            for job in jobs { job() }
            if isStopping { return }
        }
    }
}
