import CQuotaWatchShims
import Glibc

/// One started child: its process ID (also its process group ID) and the parent's end of its
/// stderr pipe. Only ``ChildProcess/run(_:timeout:killGrace:cancellation:)`` makes these.
struct SpawnedChild {
    let processID: pid_t
    private var standardErrorReadEnd: FileDescriptor?
    private(set) var standardErrorTail: [UInt8] = []
    private let tailLimit: Int

    /// Starts the child. Every descriptor made here is close-on-exec, and the child end of
    /// each pipe is closed in the parent once the child has its copy.
    static func spawn(_ request: ChildProcess.Request) throws(SpawnError) -> SpawnedChild {
        let command = request.arguments.first ?? []
        func failure(_ step: SpawnError.Step, _ error: Errno) -> SpawnError {
            SpawnError(command: command, step: step, errno: error)
        }
        guard !command.isEmpty else { throw failure(.start, .invalidArgument) }

        let input: FileDescriptor
        do { input = try inputPipe(holding: request.standardInput) } catch { throw failure(.standardInput, error) }
        defer { input.close() }

        let output: FileDescriptor
        var ownsOutput = true
        do throws(Errno) {
            switch request.standardOutput {
            case .discard: output = try openAboveStandardStreams(Array("/dev/null".utf8), O_WRONLY)
            case .daemonStandardError:
                output = .standardError
                ownsOutput = false
            case .appending(let path):
                // Non-blocking open: a FIFO with no reader fails (ENXIO) instead of hanging the
                // hook's thread for ever; the child gets a blocking descriptor as usual.
                let opened = try openAboveStandardStreams(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK)
                do throws(Errno) { try opened.setBlocking() } catch {
                    opened.close()
                    throw error
                }
                output = opened
            }
        } catch {
            let path: [UInt8]
            if case .appending(let file) = request.standardOutput {
                path = file
            } else {
                path = Array("/dev/null".utf8)
            }
            throw failure(.standardOutput(path: path), error)
        }
        defer { if ownsOutput { output.close() } }

        let errorEnds: (read: FileDescriptor, write: FileDescriptor)
        do {
            errorEnds = try pipeAboveStandardStreams()
            try errorEnds.read.setNonBlocking()
        } catch { throw failure(.standardError, error) }
        defer { errorEnds.write.close() }

        var processID: pid_t = 0
        let result: CInt
        do {
            result = try unsafe withCStringArray(request.arguments) { argv throws(Errno) in
                try unsafe withCStringArray(request.environment) { envp throws(Errno) in
                    try unsafe withOptionalCString(request.workingDirectory) { directory throws(Errno) in
                        var setup = unsafe qw_spawn_setup(
                            standard_input: input.rawValue, standard_output: output.rawValue,
                            standard_error: errorEnds.write.rawValue, working_directory: directory,
                            search_path: command.contains(UInt8(ascii: "/")) ? 0 : 1)
                        return unsafe system_spawn(&processID, argv[0]!, argv, envp, &setup)
                    }
                }
            }
        } catch {
            errorEnds.read.close()
            throw failure(.start, error)
        }
        guard result == 0 else {
            errorEnds.read.close()
            throw failure(.start, Errno(rawValue: result))
        }
        return SpawnedChild(
            processID: processID, standardErrorReadEnd: errorEnds.read, tailLimit: request.standardErrorTailLimit)
    }

    private init(processID: pid_t, standardErrorReadEnd: FileDescriptor, tailLimit: Int) {
        self.processID = processID
        self.standardErrorReadEnd = standardErrorReadEnd
        self.tailLimit = tailLimit
    }

    /// Waits until the child has exited (true), `deadline` has passed or `cancellation` is
    /// readable (false), keeping the stderr pipe drained meanwhile so the child never blocks on it.
    mutating func waitForExit(
        _ exitWatch: ExitWatch, until deadline: ContinuousClock.Instant?, cancellation: FileDescriptor?
    ) -> Bool {
        while true {
            var descriptors = [exitWatch.descriptor]
            if let cancellation { descriptors.append(cancellation) }
            if let standardErrorReadEnd { descriptors.append(standardErrorReadEnd) }
            var timeout: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return false }
                timeout = Int32(clamping: milliseconds(roundingUp: remaining))
            }
            guard let ready = try? Readiness.wait(for: descriptors, timeoutMilliseconds: timeout) else {
                return false
            }
            if ready.contains(0) { return true }
            if cancellation != nil && ready.contains(1) { return false }
            if ready.contains(descriptors.count - 1) && standardErrorReadEnd != nil { readStandardError() }
        }
    }

    /// Reads whatever stderr holds now, without waiting for end-of-file: a grandchild left
    /// running may keep the pipe open forever.
    mutating func drainStandardError() {
        readStandardError()
        standardErrorReadEnd?.close()
        standardErrorReadEnd = nil
    }

    private mutating func readStandardError() {
        guard let descriptor = standardErrorReadEnd else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = unsafe chunk.withUnsafeMutableBytes { buffer in
                valueOrErrno { unsafe system_read(descriptor.rawValue, buffer.baseAddress!, buffer.count) }
            }
            guard case .success(let count) = result, count > 0 else {
                if case .success = result {
                    // End-of-file: every writer is gone.
                    descriptor.close()
                    standardErrorReadEnd = nil
                }
                return
            }
            standardErrorTail += chunk[..<count]
            if standardErrorTail.count > tailLimit {
                standardErrorTail.removeFirst(standardErrorTail.count - tailLimit)
            }
        }
    }

    /// Sends `signal` to the child's whole process group. The group exists at least as long as
    /// the unreaped leader does.
    ///
    /// The corresponding C function is `kill` with a negative process ID.
    func signalGroup(_ signal: CInt) {
        _ = system_kill(-processID, signal)
    }

    /// Collects the child's exit status, waiting for it if need be.
    ///
    /// The corresponding C function is `waitpid`.
    func reap() -> ChildProcess.Termination {
        var status: CInt = 0
        _ = valueOrErrno { unsafe system_waitpid(processID, &status, 0) }
        // Linux's encoding (the W* macros do not reach Swift): low 7 bits are the signal that
        // ended the child, 0 for a normal exit whose status is in the next byte.
        let signal = status & 0x7f
        return signal == 0 ? .exited(status: (status >> 8) & 0xff) : .signaled(signal)
    }

    mutating func closeDescriptors() {
        standardErrorReadEnd?.close()
        standardErrorReadEnd = nil
    }

    private func milliseconds(roundingUp duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// A pipe already holding `bytes`, closed for writing, so the child reads them and then
    /// end-of-file. Writing before the spawn means no write can block on a child that never
    /// reads, and none can raise SIGPIPE on one that has exited. Returns the read end.
    private static func inputPipe(holding bytes: [UInt8]) throws(Errno) -> FileDescriptor {
        let ends = try pipeAboveStandardStreams()
        defer { ends.write.close() }
        do throws(Errno) {
            try ends.write.setNonBlocking()
            var written = 0
            var grown = false
            while written < bytes.count {
                let result = unsafe bytes.withUnsafeBytes { buffer in
                    valueOrErrno {
                        unsafe system_write(ends.write.rawValue, buffer.baseAddress! + written, bytes.count - written)
                    }
                }
                switch result {
                case .success(let count): written += count
                case .failure(.resourceTemporarilyUnavailable) where !grown:
                    // Larger than the pipe (64 KiB, or one page for a user over the soft limit).
                    grown = true
                    _ = try valueOrErrno {
                        system_fcntl(ends.write.rawValue, CInt(QW_F_SETPIPE_SZ), CInt(clamping: bytes.count))
                    }.get()
                case .failure(let error): throw error
                }
            }
        } catch {
            ends.read.close()
            throw error
        }
        return ends.read
    }

    /// A close-on-exec pipe whose ends are both above 2, so that the child's dup2 onto 0, 1 and
    /// 2 never overwrites one source with another (a daemon started with a standard stream
    /// closed would otherwise get a pipe end there).
    private static func pipeAboveStandardStreams() throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [CInt] = [0, 0]
        _ = try unsafe ends.withUnsafeMutableBufferPointer { buffer throws(Errno) in
            try valueOrErrno { unsafe system_pipe_cloexec_blocking(buffer.baseAddress!) }.get()
        }
        let read: FileDescriptor
        do {
            read = try moveAboveStandardStreams(FileDescriptor(rawValue: ends[0]))
        } catch {
            FileDescriptor(rawValue: ends[1]).close()
            throw error
        }
        do {
            return (read, try moveAboveStandardStreams(FileDescriptor(rawValue: ends[1])))
        } catch {
            read.close()
            throw error
        }
    }

    private static func openAboveStandardStreams(_ path: [UInt8], _ flags: CInt) throws(Errno) -> FileDescriptor {
        let raw = try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno {
                unsafe system_openat(AT_FDCWD, cPath, flags | O_CLOEXEC | O_NOCTTY, 0o644)
            }.get()
        }
        return try moveAboveStandardStreams(FileDescriptor(rawValue: raw))
    }

    private static func moveAboveStandardStreams(_ descriptor: FileDescriptor) throws(Errno) -> FileDescriptor {
        guard descriptor.rawValue <= 2 else { return descriptor }
        defer { descriptor.close() }
        return FileDescriptor(
            rawValue: try valueOrErrno { system_fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 3) }.get())
    }
}

extension FileDescriptor {
    /// Makes reads and writes on this descriptor wait again.
    ///
    /// The corresponding C function is `fcntl` with `F_SETFL`.
    func setBlocking() throws(Errno) {
        let flags = try valueOrErrno { system_fcntl(rawValue, F_GETFL, 0) }.get()
        _ = try valueOrErrno { system_fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) }.get()
    }

    /// Makes reads, writes and accepts on this descriptor return EAGAIN instead of waiting.
    ///
    /// The corresponding C function is `fcntl` with `F_SETFL`.
    package func setNonBlocking() throws(Errno) {
        let flags = try valueOrErrno { system_fcntl(rawValue, F_GETFL, 0) }.get()
        _ = try valueOrErrno { system_fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }.get()
    }
}

/// Calls `body` with a NULL-terminated array of C strings, as argv and envp are passed.
func withCStringArray<Result>(
    _ strings: [[UInt8]], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) throws(Errno) -> Result
) throws(Errno) -> Result {
    var storage: [CChar] = []
    var offsets: [Int] = []
    for string in strings {
        if string.contains(0) { throw Errno.invalidArgument }
        offsets.append(storage.count)
        storage += string.map { CChar(bitPattern: $0) }
        storage.append(0)
    }
    return try unsafe storage.withUnsafeMutableBufferPointer { buffer throws(Errno) in
        var pointers: [UnsafeMutablePointer<CChar>?] = unsafe offsets.map { unsafe buffer.baseAddress! + $0 }
        unsafe pointers.append(nil)
        return try unsafe pointers.withUnsafeBufferPointer { array throws(Errno) in
            try unsafe body(array.baseAddress!)
        }
    }
}

/// `withCString`, or nil for nil.
func withOptionalCString<Result>(
    _ name: [UInt8]?, _ body: (UnsafePointer<CChar>?) throws(Errno) -> Result
) throws(Errno) -> Result {
    guard let name else { return try body(nil) }
    return try unsafe withCString(name) { path throws(Errno) in try unsafe body(path) }
}
