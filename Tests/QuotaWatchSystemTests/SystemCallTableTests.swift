import CQuotaWatchShims
import Foundation
import Glibc
import Testing

@testable import QuotaWatchSystem

/// Every wrapper of the chokepoint (Syscalls.swift) in one table, as swift-system tests its
/// syscalls: failed by a fault plan, each returns its documented failure value, leaves the
/// injected errno for the layer above, never reaches the kernel, and is traced under its own
/// ``SystemCall`` case. The arguments are dummies, chosen harmless should a call get through
/// (an unused descriptor, a core-size limit of 0, a pid that is nobody's child): an injected
/// call returns before using them.
@Suite("the system-call chokepoint: every wrapper in one table")
struct SystemCallTableTests {
    /// How a wrapper says it failed.
    enum Failure: Equatable, CustomStringConvertible {
        /// -1, the error in `errno`.
        case minusOne
        /// 0, the error in `errno` (`isatty`, and the malloc tunings, which report 0 for "not done").
        case zero
        /// The error number itself (`pthread_sigmask`, `posix_spawn`).
        case errorNumber
        /// Nothing: the call is skipped (installing a signal disposition).
        case skipped
        /// It cannot fail (`getpid`); it is only traced.
        case cannotFail

        var description: String {
            switch self {
            case .minusOne: "-1"
            case .zero: "0"
            case .errorNumber: "the error number"
            case .skipped: "nothing"
            case .cannotFail: "cannot fail"
            }
        }
    }

    struct Row: CustomStringConvertible, Sendable {
        var call: SystemCall
        var failure: Failure
        /// The wrapper's name in Syscalls.swift.
        var wrapper: String
        /// Calls the wrapper once and returns its result as an Int (0 for nothing).
        var invoke: @Sendable () -> Int

        var description: String { wrapper }
    }

    // Dummy arguments, alive for the whole test run.
    nonisolated(unsafe) private static let path = strdup("never-touched")!
    nonisolated(unsafe) private static let bytes = {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: 4096)
        return bytes
    }()

    private static func typed<T>(_: T.Type) -> UnsafeMutablePointer<T> { bytes.assumingMemoryBound(to: T.self) }

    /// A descriptor no test uses: a call that did reach the kernel would fail with EBADF,
    /// which the table tells apart from the injected error.
    private static let unused: CInt = 1_000_000

    static let rows: [Row] = [
        Row(call: .openat, failure: .minusOne, wrapper: "system_openat") {
            Int(system_openat(unused, path, O_RDONLY, 0))
        },
        Row(call: .openat2, failure: .minusOne, wrapper: "system_openat2") {
            Int(system_openat2(unused, path, UInt64(O_RDONLY), 0))
        },
        Row(call: .close, failure: .minusOne, wrapper: "system_close") { Int(system_close(unused)) },
        Row(call: .fstatat, failure: .minusOne, wrapper: "system_fstatat") {
            Int(system_fstatat(unused, path, typed(stat.self), 0))
        },
        Row(call: .statx, failure: .minusOne, wrapper: "system_statx_mount") {
            Int(system_statx_mount(unused, path, 0, typed(UInt64.self), typed(CInt.self)))
        },
        Row(call: .getdents64, failure: .minusOne, wrapper: "system_getdents64") {
            system_getdents64(unused, bytes, 4096)
        },
        Row(call: .read, failure: .minusOne, wrapper: "system_read") { system_read(unused, bytes, 1) },
        Row(call: .pread, failure: .minusOne, wrapper: "system_pread") { system_pread(unused, bytes, 1, 0) },
        Row(call: .write, failure: .minusOne, wrapper: "system_write") { system_write(unused, bytes, 1) },
        Row(call: .readlinkat, failure: .minusOne, wrapper: "system_readlinkat") {
            system_readlinkat(unused, path, typed(CChar.self), 16)
        },
        Row(call: .isatty, failure: .zero, wrapper: "system_isatty") { Int(system_isatty(0)) },
        Row(call: .getrlimit, failure: .minusOne, wrapper: "system_getrlimit") {
            Int(system_getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), typed(rlimit.self)))
        },
        Row(call: .setrlimit, failure: .minusOne, wrapper: "system_setrlimit") {
            Int(system_setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), typed(rlimit.self)))
        },
        Row(call: .mallopt, failure: .zero, wrapper: "system_mallopt") { Int(system_mallopt(0, 0)) },
        Row(call: .mallocTrim, failure: .zero, wrapper: "system_malloc_trim") { Int(system_malloc_trim(0)) },
        Row(call: .inotifyInit1, failure: .minusOne, wrapper: "system_inotify_init1") {
            Int(system_inotify_init1(0))
        },
        Row(call: .inotifyAddWatch, failure: .minusOne, wrapper: "system_inotify_add_watch") {
            Int(system_inotify_add_watch(unused, path, 0))
        },
        Row(call: .inotifyRmWatch, failure: .minusOne, wrapper: "system_inotify_rm_watch") {
            Int(system_inotify_rm_watch(unused, 1))
        },
        Row(call: .poll, failure: .minusOne, wrapper: "system_poll") { Int(system_poll(typed(pollfd.self), 1, 0)) },
        Row(call: .pipe2, failure: .minusOne, wrapper: "system_pipe_cloexec") {
            Int(system_pipe_cloexec(typed(CInt.self)))
        },
        Row(call: .pipe2, failure: .minusOne, wrapper: "system_pipe_cloexec_blocking") {
            Int(system_pipe_cloexec_blocking(typed(CInt.self)))
        },
        Row(call: .eventfd, failure: .minusOne, wrapper: "system_eventfd_cloexec") {
            Int(system_eventfd_cloexec())
        },
        Row(call: .unlinkat, failure: .minusOne, wrapper: "system_unlinkat") {
            Int(system_unlinkat(unused, path, 0))
        },
        Row(call: .mknodat, failure: .minusOne, wrapper: "system_mknodat_regular") {
            Int(system_mknodat_regular(unused, path, 0o600))
        },
        Row(call: .renameat, failure: .minusOne, wrapper: "system_renameat") {
            Int(system_renameat(unused, path, unused, path))
        },
        Row(call: .mkdirat, failure: .minusOne, wrapper: "system_mkdirat") {
            Int(system_mkdirat(unused, path, 0o700))
        },
        Row(call: .fchmod, failure: .minusOne, wrapper: "system_fchmod") { Int(system_fchmod(unused, 0o600)) },
        Row(call: .fchmodat, failure: .minusOne, wrapper: "system_fchmodat") {
            Int(system_fchmodat(unused, path, 0o600, 0))
        },
        Row(call: .flock, failure: .minusOne, wrapper: "system_flock") { Int(system_flock(unused, LOCK_EX)) },
        Row(call: .fcntl, failure: .minusOne, wrapper: "system_fcntl") { Int(system_fcntl(unused, F_GETFD, 0)) },
        Row(call: .fdatasync, failure: .minusOne, wrapper: "system_fdatasync") { Int(system_fdatasync(unused)) },
        Row(call: .fstatvfs, failure: .minusOne, wrapper: "system_fstatvfs") {
            Int(system_fstatvfs(unused, typed(statvfs.self)))
        },
        Row(call: .ftruncate, failure: .minusOne, wrapper: "system_ftruncate") { Int(system_ftruncate(unused, 0)) },
        Row(call: .pthreadSigmask, failure: .errorNumber, wrapper: "system_pthread_sigmask") {
            Int(system_pthread_sigmask(SIG_BLOCK, typed(sigset_t.self), nil))
        },
        Row(call: .signalfd, failure: .minusOne, wrapper: "system_signalfd") {
            Int(system_signalfd(typed(sigset_t.self)))
        },
        Row(call: .signal, failure: .skipped, wrapper: "system_ignore_signal") {
            system_ignore_signal(SIGURG)
            return 0
        },
        Row(call: .sigaction, failure: .skipped, wrapper: "system_install_fatal_restore") {
            system_install_fatal_restore(nil, 0)
            return 0
        },
        Row(call: .clockGettime, failure: .minusOne, wrapper: "system_clock_gettime") {
            Int(system_clock_gettime(CLOCK_MONOTONIC, typed(timespec.self)))
        },
        Row(call: .getpid, failure: .cannotFail, wrapper: "system_getpid") { Int(system_getpid()) },
        Row(call: .geteuid, failure: .cannotFail, wrapper: "system_geteuid") { Int(system_geteuid()) },
        Row(call: .socket, failure: .minusOne, wrapper: "system_socket") {
            Int(system_socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0))
        },
        Row(call: .bind, failure: .minusOne, wrapper: "system_bind") {
            Int(system_bind(unused, typed(sockaddr.self), 16))
        },
        Row(call: .listen, failure: .minusOne, wrapper: "system_listen") { Int(system_listen(unused, 1)) },
        Row(call: .connect, failure: .minusOne, wrapper: "system_connect") {
            Int(system_connect(unused, typed(sockaddr.self), 16))
        },
        Row(call: .accept4, failure: .minusOne, wrapper: "system_accept4") { Int(system_accept4(unused, 0)) },
        Row(call: .send, failure: .minusOne, wrapper: "system_send") { system_send(unused, bytes, 1, 0) },
        Row(call: .recv, failure: .minusOne, wrapper: "system_recv") { system_recv(unused, bytes, 1, 0) },
        Row(call: .shutdown, failure: .minusOne, wrapper: "system_shutdown") {
            Int(system_shutdown(unused, CInt(SHUT_RDWR)))
        },
        Row(call: .setsockopt, failure: .minusOne, wrapper: "system_setsockopt") {
            Int(system_setsockopt(unused, SOL_SOCKET, SO_SNDBUF, bytes, 4))
        },
        Row(call: .getsockopt, failure: .minusOne, wrapper: "system_peer_user") {
            Int(system_peer_user(unused, typed(uid_t.self)))
        },
        Row(call: .getsockname, failure: .minusOne, wrapper: "system_getsockname") {
            Int(system_getsockname(unused, typed(sockaddr.self), typed(socklen_t.self)))
        },
        Row(call: .inetPton, failure: .minusOne, wrapper: "system_inet_pton") {
            Int(system_inet_pton(AF_INET, path, bytes))
        },
        Row(call: .spawn, failure: .errorNumber, wrapper: "system_spawn") {
            let arguments = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 2)
            defer { arguments.deallocate() }
            arguments[0] = path
            arguments[1] = nil
            var setup = qw_spawn_setup(
                standard_input: -1, standard_output: -1, standard_error: -1, working_directory: nil, search_path: 0)
            return Int(system_spawn(typed(pid_t.self), path, arguments, arguments + 1, &setup))
        },
        Row(call: .pidfdOpen, failure: .minusOne, wrapper: "system_pidfd_open") { Int(system_pidfd_open(1)) },
        Row(call: .kill, failure: .minusOne, wrapper: "system_kill") { Int(system_kill(1, 0)) },
        Row(call: .waitpid, failure: .minusOne, wrapper: "system_waitpid") {
            Int(system_waitpid(.max, typed(CInt.self), WNOHANG))
        },
        Row(call: .waitid, failure: .minusOne, wrapper: "system_waitid_nowait") { Int(system_waitid_nowait(1)) },
        Row(call: .kcmp, failure: .minusOne, wrapper: "system_kcmp_files") { Int(system_kcmp_files(1, 1)) },
        Row(call: .fanotifyInit, failure: .minusOne, wrapper: "system_fanotify_init") {
            Int(system_fanotify_init(0, 0))
        },
        Row(call: .fanotifyMark, failure: .minusOne, wrapper: "system_fanotify_mark") {
            Int(system_fanotify_mark(unused, 0, 0, unused, nil))
        },
        Row(call: .nameToHandleAt, failure: .minusOne, wrapper: "system_name_to_handle") {
            Int(
                system_name_to_handle(
                    unused, typed(UInt8.self), 128, typed(UInt32.self), typed(CInt.self), typed(UInt64.self)))
        },
        Row(call: .openByHandleAt, failure: .minusOne, wrapper: "system_open_by_handle") {
            Int(system_open_by_handle(unused, typed(UInt8.self), 8, 1))
        },
        Row(call: .fstatfs, failure: .minusOne, wrapper: "system_file_system_id") {
            Int(system_file_system_id(unused, typed(UInt64.self)))
        },
        Row(call: .fstatfs, failure: .minusOne, wrapper: "system_file_system_kind") {
            Int(system_file_system_kind(unused, typed(UInt64.self), typed(UInt64.self)))
        },
    ]

    @Test("every SystemCall case has a row, and every wrapper in Syscalls.swift has one")
    func tableIsWhole() throws {
        #expect(Set(Self.rows.map(\.call)) == Set(SystemCall.allCases))
        let source = try String(
            contentsOfFile: #filePath.replacingOccurrences(
                of: "Tests/QuotaWatchSystemTests/SystemCallTableTests.swift",
                with: "Sources/QuotaWatchSystem/Syscalls.swift"),
            encoding: .utf8)
        let wrappers = source.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("func system_") else { return nil }
            return String(line.dropFirst("func ".count).prefix { $0 != "(" })
        }
        #expect(wrappers.count > 50)
        #expect(Set(wrappers) == Set(Self.rows.map(\.wrapper)))
    }

    @Test("failed by a plan: the failure value, the injected errno, no kernel call, traced", arguments: Self.rows)
    func failedByAPlan(_ row: Row) {
        let injected = Errno.noSpace
        let faults = FaultPlan()
        faults.fail(row.call, with: injected)
        errno = 0
        let (result, error) = faults.arm { () -> (Int, CInt) in
            let result = row.invoke()
            return (result, errno)
        }
        let traced = faults.calls(row.call)
        #expect(traced.count == 1, "\(traced)")
        switch row.failure {
        case .minusOne:
            #expect(result == -1)
            #expect(error == injected.rawValue, "errno \(error): the call reached the kernel, or lost the error")
            #expect(traced.first?.injected == injected)
        case .zero:
            #expect(result == 0)
            #expect(error == injected.rawValue)
            #expect(traced.first?.injected == injected)
        case .errorNumber:
            #expect(result == Int(injected.rawValue))
            #expect(traced.first?.injected == injected)
        case .skipped:
            #expect(traced.first?.injected == injected)
        case .cannotFail:
            #expect(traced.first?.injected == nil)
        }
    }
}

/// EINTR, handled once (`valueOrErrno`): a call interrupted once is made again and succeeds,
/// through the typed layer users of System call; `close` alone is not, since Linux has already
/// released the descriptor when it reports EINTR.
@Suite("the system-call chokepoint: EINTR retried where it must be, and only there")
struct InterruptedCallTests {
    struct Row: CustomStringConvertible, Sendable {
        var call: SystemCall
        var retried: Bool
        var operation: String
        /// Runs the operation in `scratch` (which holds a directory "d" and a file "f").
        var run: @Sendable (_ scratch: String, _ base: FileDescriptor) throws -> Void

        var description: String { "\(call.rawValue): \(operation)" }
    }

    static let rows: [Row] = [
        Row(call: .openat, retried: true, operation: "FileDescriptor.openDirectory") { _, base in
            try base.openDirectory(Array("d".utf8)).close()
        },
        Row(call: .fstatat, retried: true, operation: "FileDescriptor.status(of:)") { _, base in
            _ = try base.status(of: Array("f".utf8))
        },
        Row(call: .mknodat, retried: true, operation: "FileDescriptor.createExclusiveFile") { _, base in
            try base.createExclusiveFile(Array("new".utf8))
        },
        Row(call: .unlinkat, retried: true, operation: "FileDescriptor.unlink") { _, base in
            try base.unlink(Array("f".utf8))
        },
        Row(call: .getdents64, retried: true, operation: "DirectoryEntries.names(of:)") { _, base in
            let names = try DirectoryEntries.names(of: base)
            guard names.count == 2 else { throw Errno(rawValue: EIO) }
        },
        Row(call: .write, retried: true, operation: "DurableFile.replace") { scratch, _ in
            try DurableFile.replace(Array("\(scratch)/state".utf8), with: Array("x".utf8))
        },
        Row(call: .fdatasync, retried: true, operation: "DurableFile.replace") { scratch, _ in
            try DurableFile.replace(Array("\(scratch)/state".utf8), with: Array("x".utf8))
        },
        Row(call: .renameat, retried: true, operation: "DurableFile.rename") { scratch, _ in
            try DurableFile.rename(Array("\(scratch)/f".utf8), to: Array("\(scratch)/g".utf8))
        },
        Row(call: .mkdirat, retried: true, operation: "DurableFile.makeDirectories") { scratch, _ in
            try DurableFile.makeDirectories(Array("\(scratch)/d/e".utf8))
        },
        Row(call: .close, retried: false, operation: "FileDescriptor.close") { _, base in
            try base.openDirectory(Array("d".utf8)).close()
        },
    ]

    /// Runs `row` in a fresh scratch directory under `faults`; what it threw, if anything.
    private func run(_ row: Row, under faults: FaultPlan) throws -> Result<Void, any Error> {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.file("d"), withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: scratch.file("f"), contents: Data("f".utf8)))
        let base = try FileDescriptor.currentWorkingDirectory.openDirectory(scratch.path.bytes)
        defer { base.close() }
        return faults.arm { Result { try row.run(scratch.path, base) } }
    }

    @Test("interrupted once", arguments: Self.rows)
    func interruptedOnce(_ row: Row) throws {
        // The same operation uninterrupted says how many such calls it makes (getdents64 until
        // the end of the directory, mkdirat once per component).
        let plain = FaultPlan()
        try run(row, under: plain).get()
        let needed = plain.calls(row.call).count
        #expect(needed >= 1)

        let faults = FaultPlan()
        faults.fail(row.call, with: .interrupted, times: 1)
        let outcome = try run(row, under: faults)
        let calls = faults.calls(row.call)
        #expect(calls.first?.injected == .interrupted, "\(faults.trace)")
        if row.retried {
            #expect(throws: Never.self) { try outcome.get() }
            #expect(calls.count == needed + 1, "EINTR not retried: \(calls)")
        } else {
            #expect(calls.count == needed, "retried after EINTR: \(calls)")
        }
    }
}
