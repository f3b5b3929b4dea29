#if QUOTAWATCH_FAULT_INJECTION
    import Glibc
    import Synchronization

    /// A test's faults for the system-call chokepoint, armed on one thread at a time (and
    /// inherited by the ``JoinableThread``s that thread starts): the calls it fails, and the
    /// trace of every call made while it was armed. Tests run in parallel in one process;
    /// a plan armed on one test's thread is not seen by any other.
    ///
    /// Compiled only into builds with QUOTAWATCH_FAULT_INJECTION (debug builds, and so
    /// `swift test`); a release build has neither this type nor any check for it.
    ///
    ///     let faults = FaultPlan()
    ///     faults.fail(.fdatasync, with: .noSpace)
    ///     let report = faults.arm { try ManualClean.runLocally(…) }
    package final class FaultPlan: Sendable {
        /// One call as the chokepoint saw it.
        package struct Call: Sendable, Hashable, CustomStringConvertible {
            package var call: SystemCall
            /// The path argument, for calls that take one.
            package var path: [UInt8]?
            /// The descriptor argument, for calls on one descriptor (`read`, `fdatasync`).
            package var descriptor: CInt?
            /// The error the plan made it fail with; nil when it went to the kernel.
            package var injected: Errno?

            package var description: String {
                let path = self.path.map { " '\(String(decoding: $0, as: UTF8.self))'" } ?? ""
                return "\(call.rawValue)\(path)" + (injected.map { " -> injected \($0.rawValue)" } ?? "")
            }
        }

        private struct Rule {
            var call: SystemCall
            var error: Errno
            var path: [UInt8]?
            var descriptor: CInt?
            var skipping: Int
            /// Nil: every matching call fails.
            var remaining: Int?

            func matches(
                _ candidate: SystemCall, path candidatePath: [UInt8]?, descriptor candidateDescriptor: CInt?
            )
                -> Bool
            {
                guard candidate == call else { return false }
                if let descriptor, descriptor != candidateDescriptor { return false }
                guard let path else { return true }
                guard let candidatePath, candidatePath.count >= path.count else { return false }
                guard candidatePath.suffix(path.count).elementsEqual(path) else { return false }
                return candidatePath.count == path.count || candidatePath[candidatePath.count - path.count - 1] == 0x2F
            }
        }

        private struct State {
            var rules: [Rule] = []
            var trace: [Call] = []
        }

        private let state = Mutex(State())

        package init() {}

        /// Makes `call` fail with `error`: every time (`times` nil) or for the next `times`
        /// calls that match, after letting `skipping` matching calls through. `path` matches a
        /// call whose path is exactly that or ends in "/" and that (a name, or a path's tail);
        /// `descriptor`, one on that descriptor. Later rules add to earlier ones.
        package func fail(
            _ call: SystemCall, with error: Errno, times: Int? = nil, skipping: Int = 0, path: String? = nil,
            descriptor: CInt? = nil
        ) {
            let rule = Rule(
                call: call, error: error, path: path.map { Array($0.utf8) }, descriptor: descriptor,
                skipping: skipping, remaining: times)
            state.withLock { $0.rules.append(rule) }
        }

        /// Lets every call through again (the trace is kept).
        package func clear() { state.withLock { $0.rules.removeAll() } }

        /// Every call made on a thread where the plan was armed, in order.
        package var trace: [Call] { state.withLock { $0.trace } }

        /// The traced calls of one kind.
        package func calls(_ call: SystemCall) -> [Call] { trace.filter { $0.call == call } }

        /// Runs `body` with the plan armed on this thread (and on every ``JoinableThread``
        /// started from it meanwhile), restoring whatever was armed before.
        package func arm<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
            let previous = unsafe pthread_getspecific(planKey)
            unsafe pthread_setspecific(planKey, Unmanaged.passRetained(self).toOpaque())
            defer {
                unsafe pthread_setspecific(planKey, previous)
                unsafe Unmanaged.passUnretained(self).release()
            }
            return try body()
        }

        /// The plan armed on the calling thread.
        static var current: FaultPlan? {
            guard let raw = unsafe pthread_getspecific(planKey) else { return nil }
            return unsafe Unmanaged<FaultPlan>.fromOpaque(raw).takeUnretainedValue()
        }

        /// Records the call and returns the error to fail it with, if a rule says so.
        func intercept(_ call: SystemCall, path: [UInt8]?, descriptor: CInt?) -> Errno? {
            state.withLock { state in
                var injected: Errno?
                for index in state.rules.indices {
                    guard state.rules[index].matches(call, path: path, descriptor: descriptor) else { continue }
                    if state.rules[index].skipping > 0 {
                        state.rules[index].skipping -= 1
                        continue
                    }
                    if let remaining = state.rules[index].remaining {
                        guard remaining > 0 else { continue }
                        state.rules[index].remaining = remaining - 1
                    }
                    injected = state.rules[index].error
                    break
                }
                state.trace.append(Call(call: call, path: path, descriptor: descriptor, injected: injected))
                return injected
            }
        }

        func record(_ call: SystemCall) {
            state.withLock { $0.trace.append(Call(call: call, path: nil, descriptor: nil, injected: nil)) }
        }
    }

    /// The thread-local slot holding each thread's armed plan (retained while armed).
    private let planKey: pthread_key_t = {
        var key = pthread_key_t()
        // Test builds only: without the slot no fault could be armed, and a test relying on one
        // would pass without testing anything.
        guard unsafe pthread_key_create(&key, nil) == 0 else { fatalError("pthread_key_create failed") }
        return key
    }()
#endif
