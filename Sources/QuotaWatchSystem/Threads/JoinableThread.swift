import Dispatch
import Foundation
import Synchronization

/// A thread that can be waited for: ``join()`` returns once its body has returned. Every
/// thread QuotaWatch starts is one of these, so that when `run` ends nothing it started is
/// still running, so that a test's armed ``FaultPlan`` (in a build with fault injection)
/// reaches the threads started under it, and so that the ``ThreadSubject`` (the root its log
/// lines name) passes from a thread to those it starts.
package final class JoinableThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let done = Atomic<Bool>(false)

    /// Starts `body` on a new thread named `name` (as `top -H` and /proc/PID/task show it).
    /// `inheritsSubject`: false for a thread that serves every root whichever root's thread
    /// happens to start it.
    package init(
        name: String, stackSize: Int? = nil, inheritsSubject: Bool = true, _ body: @escaping @Sendable () -> Void
    ) {
        let faults = InheritedFaults()
        let subject = inheritsSubject ? ThreadSubject.current : nil
        let thread = Thread { [self] in
            ThreadSubject.with(subject) { faults.run(body) }
            done.store(true, ordering: .releasing)
            finished.signal()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// True once the body has returned: ``join()`` will not wait.
    package var hasFinished: Bool { done.load(ordering: .acquiring) }

    /// Waits until the body has returned. Calling it again, from any thread, returns at once
    /// once the body is done.
    package func join() {
        finished.wait()
        finished.signal()
    }
}
