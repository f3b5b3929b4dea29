import Glibc

// The hook every `system_*` wrapper calls first. In a build with QUOTAWATCH_FAULT_INJECTION
// (Package.swift sets it for debug builds only) it asks the plan armed on the calling thread,
// if any, whether to fail the call; in a release build it is `false`, inlined, and the
// wrappers compile to the bare C call.

/// Records `call` with the plan armed on this thread and, if the plan says so, sets `errno`
/// and returns true: the wrapper then returns its failure value (-1, or 0 for `isatty`)
/// without calling the C library.
@inline(__always)
func injectedFault(_ call: SystemCall, path: UnsafePointer<CChar>? = nil, descriptor: CInt? = nil) -> Bool {
    #if QUOTAWATCH_FAULT_INJECTION
        guard let plan = FaultPlan.current else { return false }
        let bytes = unsafe path.map { unsafe Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        guard let error = plan.intercept(call, path: bytes, descriptor: descriptor) else { return false }
        errno = error.rawValue
        return true
    #else
        return false
    #endif
}

/// Records a call that cannot fail (`getpid`) with the plan armed on this thread, if any.
@inline(__always)
func tracedCall(_ call: SystemCall) {
    #if QUOTAWATCH_FAULT_INJECTION
        FaultPlan.current?.record(call)
    #endif
}

/// The faults a new thread inherits from the thread that starts it: the plan armed there, in
/// a build with fault injection; nothing otherwise. ``JoinableThread`` passes it on, so a test
/// that arms a plan and then starts an engine (whose reader, crawler and writer threads are
/// all JoinableThreads) injects into every thread of that engine and of no other test.
struct InheritedFaults: Sendable {
    #if QUOTAWATCH_FAULT_INJECTION
        private let plan: FaultPlan?
        init() { plan = FaultPlan.current }
        func run(_ body: () -> Void) {
            guard let plan else { return body() }
            plan.arm(body)
        }
    #else
        init() {}
        @inline(__always) func run(_ body: () -> Void) { body() }
    #endif
}

/// Where a test's faults cannot follow. Every thread QuotaWatch starts is a
/// ``JoinableThread``, which carries the armed plan over; work handed to Swift's concurrency
/// pool is not (a plan is armed per thread, and a task hops between the pool's threads).
package enum FaultReach {
    /// Stops the process, naming `work`, when a plan is armed on the calling thread: `work`
    /// is about to run on the concurrency pool, where none of the plan's faults would be
    /// injected, and a test relying on them would pass without testing anything. Nothing in
    /// a build without fault injection.
    @inline(__always)
    package static func leavingPlan(for work: StaticString) {
        #if QUOTAWATCH_FAULT_INJECTION
            if FaultPlan.current != nil {
                preconditionFailure("a fault plan is armed on this thread, and \(work) runs where no plan reaches")
            }
        #endif
    }
}
