import Glibc

/// A command run to completion as its own process group: the way alert hooks run.
///
/// The child gets exactly three descriptors (stdin, stdout and stderr, see ``Request``), an
/// explicit environment, an empty signal mask with every classic signal at its default, and a
/// process group of its own, so a timeout can stop it together with everything it started.
/// Nothing here installs a SIGCHLD handler or polls: the exit is waited for on a pidfd, or
/// where the kernel has none (before 5.3), on a pipe a waiter thread writes when it sees the
/// exit.
package enum ChildProcess {
    /// What to run and how to connect it.
    package struct Request: Sendable, Equatable {
        /// argv; argv[0] without a slash is looked up in the daemon's PATH.
        package var arguments: [[UInt8]]
        /// `NAME=value` entries, and nothing else: the daemon's own environment is not passed on.
        package var environment: [[UInt8]]
        /// Written to the child's stdin, which then reads end-of-file.
        package var standardInput: [UInt8]
        package var standardOutput: Output
        /// Where the child starts; nil keeps the daemon's working directory.
        package var workingDirectory: [UInt8]?
        /// How much of the end of the child's stderr is kept for the report.
        package var standardErrorTailLimit: Int

        package init(
            arguments: [[UInt8]], environment: [[UInt8]], standardInput: [UInt8] = [],
            standardOutput: Output = .discard, workingDirectory: [UInt8]? = nil, standardErrorTailLimit: Int = 4096
        ) {
            self.arguments = arguments
            self.environment = environment
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.workingDirectory = workingDirectory
            self.standardErrorTailLimit = standardErrorTailLimit
        }
    }

    /// Where the child's stdout goes.
    package enum Output: Sendable, Equatable {
        /// `/dev/null`.
        case discard
        /// The daemon's own stderr (descriptor 2).
        case daemonStandardError
        /// Appended to this file, which is created (mode 0644 less the umask) if missing.
        case appending(to: [UInt8])
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable {
        case exited(status: Int32)
        case signaled(Int32)
    }

    /// How a run ended, and what the child said on stderr.
    package struct Outcome: Sendable, Equatable {
        package var termination: Termination
        /// The child outlived its timeout and its process group was killed.
        package var timedOut: Bool
        /// The cancellation descriptor became readable and the process group was killed.
        package var cancelled: Bool
        /// The last bytes the child wrote to stderr, at most the request's limit.
        package var standardErrorTail: [UInt8]

        package init(termination: Termination, timedOut: Bool, cancelled: Bool, standardErrorTail: [UInt8]) {
            self.termination = termination
            self.timedOut = timedOut
            self.cancelled = cancelled
            self.standardErrorTail = standardErrorTail
        }
    }

    /// Runs `request` and waits for it to end, at most `timeout`; then, or when `cancellation`
    /// becomes readable, the whole process group gets SIGTERM, and SIGKILL after `killGrace`.
    /// The child is always reaped before this returns. Processes the child left running in its
    /// group when it exited on its own are not touched.
    ///
    /// The corresponding C functions are `pipe2`, `openat`, `posix_spawn(p)`, `pidfd_open`,
    /// `poll`, `kill` and `waitpid`.
    package static func run(
        _ request: Request, timeout: Duration, killGrace: Duration = .seconds(2),
        cancellation: FileDescriptor? = nil
    ) throws(SpawnError) -> Outcome {
        try run(request, timeout: timeout, killGrace: killGrace, cancellation: cancellation, exitWatch: .automatic)
    }

    /// How the exit is noticed; tests force the waiter thread that old kernels need.
    enum ExitWatchMethod {
        case automatic
        case waiterThread
    }

    static func run(
        _ request: Request, timeout: Duration, killGrace: Duration, cancellation: FileDescriptor?,
        exitWatch method: ExitWatchMethod
    ) throws(SpawnError) -> Outcome {
        let started = try SpawnedChild.spawn(request)
        let deadline = ContinuousClock.now + timeout
        var child = started
        defer { child.closeDescriptors() }
        let exitWatch: ExitWatch
        do {
            exitWatch = try ExitWatch(processID: child.processID, method: method)
        } catch {
            // Without a way to wait there is no way to time out: stop it now rather than hang.
            child.signalGroup(SIGKILL)
            _ = child.reap()
            throw SpawnError(command: request.arguments.first ?? [], step: .watchExit, errno: error)
        }
        defer { exitWatch.close() }

        var timedOut = false
        var cancelled = false
        if !child.waitForExit(exitWatch, until: deadline, cancellation: cancellation) {
            if let cancellation, (try? Readiness.wait(for: [cancellation], timeoutMilliseconds: 0))?.isEmpty == false {
                cancelled = true
            } else {
                timedOut = true
            }
            child.signalGroup(SIGTERM)
            _ = child.waitForExit(exitWatch, until: ContinuousClock.now + killGrace, cancellation: nil)
            // The leader is not reaped yet, so its process group ID cannot have been reused.
            child.signalGroup(SIGKILL)
            _ = child.waitForExit(exitWatch, until: nil, cancellation: nil)
        }
        child.drainStandardError()
        return Outcome(
            termination: child.reap(), timedOut: timedOut, cancelled: cancelled,
            standardErrorTail: child.standardErrorTail)
    }
}

/// Why a child could not be started.
package struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Step: Sendable, Equatable {
        /// Making the pipe for stdin or writing the input into it.
        case standardInput
        /// Opening the stdout file (or /dev/null).
        case standardOutput(path: [UInt8])
        /// Making the pipe for stderr.
        case standardError
        /// posix_spawn itself: usually a command that does not exist or may not be executed.
        case start
        /// Neither a pidfd nor a waiter thread could be had.
        case watchExit
    }

    /// argv[0].
    package var command: [UInt8]
    package var step: Step
    package var errno: Errno

    package init(command: [UInt8], step: Step, errno: Errno) {
        self.command = command
        self.step = step
        self.errno = errno
    }

    package var description: String {
        let name = String(decoding: command, as: UTF8.self)
        switch step {
        case .start:
            if errno == .noSuchFileOrDirectory && !command.contains(UInt8(ascii: "/")) {
                return "cannot run '\(name)': \(errno) (not found in PATH)"
            }
            return "cannot run '\(name)': \(errno)"
        case .standardInput: return "cannot pass the event to '\(name)' on stdin: \(errno)"
        case .standardOutput(let path):
            return "cannot open '\(String(decoding: path, as: UTF8.self))' for the output of '\(name)': \(errno)"
        case .standardError: return "cannot make the stderr pipe for '\(name)': \(errno)"
        case .watchExit: return "cannot wait for '\(name)' to exit: \(errno)"
        }
    }
}
