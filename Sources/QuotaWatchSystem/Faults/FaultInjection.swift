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
/// that arms a plan and then starts an engine (whose reader, crawler, writer, history and
/// cleanup runner threads, and each cleaner call's, are all JoinableThreads) injects into every
/// thread of that engine and of no other test. Nothing in Sources starts work any other way
/// (ThreadVocabularyTests), so no thread the daemon starts is out of a plan's reach.
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
