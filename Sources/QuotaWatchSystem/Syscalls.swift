import CQuotaWatchShims
import Glibc

// The only place QuotaWatch calls the C library for system work. Everything above this file
// sees typed values and `Errno`. Each wrapper first asks `injectedFault` whether a test's
// armed `FaultPlan` fails the call (Faults/FaultInjection.swift); in a release build that
// check is compiled out.

func system_openat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt {
    if unsafe injectedFault(.openat, path: path, descriptor: directory) { return -1 }
    return unsafe openat(directory, path, flags, mode)
}

func system_close(_ descriptor: CInt) -> CInt {
    if injectedFault(.close, descriptor: descriptor) { return -1 }
    return close(descriptor)
}

func system_fstatat(
    _ directory: CInt, _ path: UnsafePointer<CChar>, _ status: UnsafeMutablePointer<stat>, _ flags: CInt
) -> CInt {
    if unsafe injectedFault(.fstatat, path: path, descriptor: directory) { return -1 }
    return unsafe fstatat(directory, path, status, flags)
}

func system_getdents64(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int) -> Int {
    if injectedFault(.getdents64, descriptor: descriptor) { return -1 }
    return unsafe qw_getdents64(descriptor, buffer, length)
}

func system_read(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int) -> Int {
    if injectedFault(.read, descriptor: descriptor) { return -1 }
    return unsafe read(descriptor, buffer, length)
}

func system_write(_ descriptor: CInt, _ buffer: UnsafeRawPointer, _ length: Int) -> Int {
    if injectedFault(.write, descriptor: descriptor) { return -1 }
    return unsafe write(descriptor, buffer, length)
}

func system_isatty(_ descriptor: CInt) -> CInt {
    if injectedFault(.isatty, descriptor: descriptor) { return 0 }
    return isatty(descriptor)
}

func system_getrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafeMutablePointer<rlimit>) -> CInt {
    if injectedFault(.getrlimit) { return -1 }
    return unsafe getrlimit(resource, limit)
}

func system_setrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafePointer<rlimit>) -> CInt {
    if injectedFault(.setrlimit) { return -1 }
    return unsafe setrlimit(resource, limit)
}

func system_mallopt(_ parameter: CInt, _ value: CInt) -> CInt {
    if injectedFault(.mallopt) { return 0 }
    return qw_mallopt(parameter, value)
}

func system_malloc_trim(_ pad: Int) -> CInt {
    if injectedFault(.mallocTrim) { return 0 }
    return qw_malloc_trim(pad)
}

func system_inotify_init1(_ flags: CInt) -> CInt {
    if injectedFault(.inotifyInit1) { return -1 }
    return inotify_init1(flags)
}

func system_inotify_add_watch(_ descriptor: CInt, _ path: UnsafePointer<CChar>, _ mask: UInt32) -> CInt {
    if unsafe injectedFault(.inotifyAddWatch, path: path, descriptor: descriptor) { return -1 }
    return unsafe inotify_add_watch(descriptor, path, mask)
}

func system_inotify_rm_watch(_ descriptor: CInt, _ watch: CInt) -> CInt {
    if injectedFault(.inotifyRmWatch, descriptor: descriptor) { return -1 }
    return inotify_rm_watch(descriptor, watch)
}

func system_poll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: CInt) -> CInt {
    if injectedFault(.poll) { return -1 }
    return unsafe poll(descriptors, nfds_t(count), timeoutMilliseconds)
}

func system_pipe_cloexec(_ descriptors: UnsafeMutablePointer<CInt>) -> CInt {
    if injectedFault(.pipe2) { return -1 }
    return unsafe qw_pipe_cloexec(descriptors)
}

func system_eventfd_cloexec() -> CInt {
    if injectedFault(.eventfd) { return -1 }
    return qw_eventfd_cloexec()
}

func system_mknodat_regular(_ directory: CInt, _ path: UnsafePointer<CChar>, _ mode: mode_t) -> CInt {
    if unsafe injectedFault(.mknodat, path: path, descriptor: directory) { return -1 }
    return unsafe qw_mknodat_regular(directory, path, mode)
}

func system_unlinkat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt) -> CInt {
    if unsafe injectedFault(.unlinkat, path: path, descriptor: directory) { return -1 }
    return unsafe unlinkat(directory, path, flags)
}

func system_pthread_sigmask(_ how: CInt, _ set: UnsafePointer<sigset_t>, _ old: UnsafeMutablePointer<sigset_t>?) -> CInt
{
    if injectedFault(.pthreadSigmask) { return errno }
    return unsafe pthread_sigmask(how, set, old)
}

func system_ignore_signal(_ signalNumber: CInt) {
    if injectedFault(.signal) { return }
    _ = signal(signalNumber, SIG_IGN)
}

/// Installs the handlers that restore the terminal on a fatal signal (`sigaction`).
func system_install_fatal_restore(_ bytes: UnsafePointer<CChar>?, _ count: Int) {
    if injectedFault(.sigaction) { return }
    unsafe qw_install_fatal_restore(bytes, count)
}

func system_signalfd(_ set: UnsafePointer<sigset_t>) -> CInt {
    if injectedFault(.signalfd) { return -1 }
    return unsafe qw_signalfd(set)
}

func system_clock_gettime(_ clock: clockid_t, _ time: UnsafeMutablePointer<timespec>) -> CInt {
    if injectedFault(.clockGettime) { return -1 }
    return unsafe clock_gettime(clock, time)
}

func system_getpid() -> pid_t {
    tracedCall(.getpid)
    return getpid()
}

func system_geteuid() -> uid_t {
    tracedCall(.geteuid)
    return geteuid()
}

// MARK: Unix-domain sockets (UnixSocket.swift)

func system_socket(_ domain: CInt, _ type: CInt, _ protocolNumber: CInt) -> CInt {
    if injectedFault(.socket) { return -1 }
    return socket(domain, type, protocolNumber)
}

func system_bind(_ descriptor: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
    if injectedFault(.bind, descriptor: descriptor) { return -1 }
    return unsafe bind(descriptor, address, length)
}

func system_listen(_ descriptor: CInt, _ backlog: CInt) -> CInt {
    if injectedFault(.listen, descriptor: descriptor) { return -1 }
    return listen(descriptor, backlog)
}

func system_connect(_ descriptor: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
    if injectedFault(.connect, descriptor: descriptor) { return -1 }
    return unsafe connect(descriptor, address, length)
}

/// Accepts with `flags` (SOCK_CLOEXEC) applied atomically, so the descriptor never leaks into
/// a child spawned in between.
func system_accept4(_ descriptor: CInt, _ flags: CInt) -> CInt {
    if injectedFault(.accept4, descriptor: descriptor) { return -1 }
    return qw_accept4(descriptor, nil, nil, flags)
}

func system_send(_ descriptor: CInt, _ buffer: UnsafeRawPointer, _ length: Int, _ flags: CInt) -> Int {
    if injectedFault(.send, descriptor: descriptor) { return -1 }
    return unsafe send(descriptor, buffer, length, flags)
}

func system_recv(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int, _ flags: CInt) -> Int {
    if injectedFault(.recv, descriptor: descriptor) { return -1 }
    return unsafe recv(descriptor, buffer, length, flags)
}

func system_shutdown(_ descriptor: CInt, _ how: CInt) -> CInt {
    if injectedFault(.shutdown, descriptor: descriptor) { return -1 }
    return shutdown(descriptor, how)
}

func system_setsockopt(
    _ descriptor: CInt, _ level: CInt, _ option: CInt, _ value: UnsafeRawPointer, _ length: socklen_t
) -> CInt {
    if injectedFault(.setsockopt, descriptor: descriptor) { return -1 }
    return unsafe setsockopt(descriptor, level, option, value, length)
}

// MARK: TCP sockets (TCPListener.swift)

func system_getsockname(
    _ descriptor: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> CInt {
    if injectedFault(.getsockname, descriptor: descriptor) { return -1 }
    return unsafe getsockname(descriptor, address, length)
}

/// Not a system call, but the C library's: 1 for a valid address, 0 for text that is not one.
func system_inet_pton(_ family: CInt, _ text: UnsafePointer<CChar>, _ address: UnsafeMutableRawPointer) -> CInt {
    if unsafe injectedFault(.inetPton, path: text) { return -1 }
    return unsafe inet_pton(family, text, address)
}

func system_fchmod(_ descriptor: CInt, _ mode: mode_t) -> CInt {
    if injectedFault(.fchmod, descriptor: descriptor) { return -1 }
    return fchmod(descriptor, mode)
}

func system_fchmodat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ mode: mode_t, _ flags: CInt) -> CInt {
    if unsafe injectedFault(.fchmodat, path: path, descriptor: directory) { return -1 }
    return unsafe fchmodat(directory, path, mode, flags)
}

func system_mkdirat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ mode: mode_t) -> CInt {
    if unsafe injectedFault(.mkdirat, path: path, descriptor: directory) { return -1 }
    return unsafe mkdirat(directory, path, mode)
}

func system_flock(_ descriptor: CInt, _ operation: CInt) -> CInt {
    if injectedFault(.flock, descriptor: descriptor) { return -1 }
    return flock(descriptor, operation)
}

func system_ftruncate(_ descriptor: CInt, _ length: Int) -> CInt {
    if injectedFault(.ftruncate, descriptor: descriptor) { return -1 }
    return ftruncate(descriptor, off_t(length))
}

// MARK: Child processes (ChildProcess.swift)

func system_pipe_cloexec_blocking(_ descriptors: UnsafeMutablePointer<CInt>) -> CInt {
    if injectedFault(.pipe2) { return -1 }
    return unsafe qw_pipe_cloexec_blocking(descriptors)
}

func system_fcntl(_ descriptor: CInt, _ command: CInt, _ value: CInt) -> CInt {
    if injectedFault(.fcntl, descriptor: descriptor) { return -1 }
    return fcntl(descriptor, command, value)
}

/// Returns 0 or an error number; never -1 and errno.
func system_spawn(
    _ processID: UnsafeMutablePointer<pid_t>, _ file: UnsafePointer<CChar>,
    _ arguments: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    _ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    _ setup: UnsafePointer<qw_spawn_setup>
) -> CInt {
    if unsafe injectedFault(.spawn, path: file) { return errno }
    return unsafe qw_spawn(processID, file, arguments, environment, setup)
}

func system_pidfd_open(_ processID: pid_t) -> CInt {
    if injectedFault(.pidfdOpen) { return -1 }
    return qw_pidfd_open(processID)
}

func system_kill(_ processID: pid_t, _ signal: CInt) -> CInt {
    if injectedFault(.kill) { return -1 }
    return kill(processID, signal)
}

func system_waitpid(_ processID: pid_t, _ status: UnsafeMutablePointer<CInt>, _ options: CInt) -> pid_t {
    if injectedFault(.waitpid) { return -1 }
    return unsafe waitpid(processID, status, options)
}

func system_waitid_nowait(_ processID: pid_t) -> CInt {
    if injectedFault(.waitid) { return -1 }
    var information = unsafe siginfo_t()
    return unsafe waitid(P_PID, id_t(processID), &information, WEXITED | WNOWAIT)
}

func system_fstatvfs(_ descriptor: CInt, _ result: UnsafeMutablePointer<statvfs>) -> CInt {
    if injectedFault(.fstatvfs, descriptor: descriptor) { return -1 }
    return unsafe fstatvfs(descriptor, result)
}

// MARK: Deleting and the audit log (Deleter.swift, DurableFile.swift)

func system_openat2(
    _ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: UInt64, _ resolve: UInt64
) -> CInt {
    if unsafe injectedFault(.openat2, path: path, descriptor: directory) { return -1 }
    return unsafe qw_openat2(directory, path, flags, resolve)
}

func system_statx_mount(
    _ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mountID: UnsafeMutablePointer<UInt64>,
    _ mountRoot: UnsafeMutablePointer<CInt>
) -> CInt {
    if unsafe injectedFault(.statx, path: path, descriptor: directory) { return -1 }
    return unsafe qw_statx_mount(directory, path, flags, mountID, mountRoot)
}

func system_kcmp_files(_ first: pid_t, _ second: pid_t) -> CInt {
    if injectedFault(.kcmp) { return -1 }
    return qw_kcmp_files(first, second)
}

func system_fdatasync(_ descriptor: CInt) -> CInt {
    if injectedFault(.fdatasync, descriptor: descriptor) { return -1 }
    return qw_fdatasync(descriptor)
}

func system_renameat(
    _ fromDirectory: CInt, _ from: UnsafePointer<CChar>, _ toDirectory: CInt, _ to: UnsafePointer<CChar>
) -> CInt {
    if unsafe injectedFault(.renameat, path: from, descriptor: fromDirectory) { return -1 }
    return unsafe renameat(fromDirectory, from, toDirectory, to)
}

func system_pread(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int, _ offset: Int) -> Int {
    if injectedFault(.pread, descriptor: descriptor) { return -1 }
    return unsafe pread(descriptor, buffer, length, off_t(offset))
}

// MARK: Trusting a control socket (UnixSocket+Trust.swift)

func system_peer_user(_ descriptor: CInt, _ user: UnsafeMutablePointer<uid_t>) -> CInt {
    if injectedFault(.getsockopt, descriptor: descriptor) { return -1 }
    return unsafe qw_peer_user(descriptor, user)
}

// MARK: Mounts (MountTable.swift, FileDescriptor+Mount.swift)

func system_readlinkat(
    _ directory: CInt, _ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int
) -> Int {
    if unsafe injectedFault(.readlinkat, path: path, descriptor: directory) { return -1 }
    return unsafe readlinkat(directory, path, buffer, length)
}

// MARK: fanotify and file handles (Fanotify.swift, FileDescriptor+Handle.swift)

func system_fanotify_init(_ flags: UInt32, _ eventFlags: UInt32) -> CInt {
    if injectedFault(.fanotifyInit) { return -1 }
    return qw_fanotify_init(flags, eventFlags)
}

func system_fanotify_mark(
    _ descriptor: CInt, _ flags: UInt32, _ mask: UInt64, _ directory: CInt, _ path: UnsafePointer<CChar>?
) -> CInt {
    if unsafe injectedFault(.fanotifyMark, path: path, descriptor: directory) { return -1 }
    return unsafe qw_fanotify_mark(descriptor, flags, mask, directory, path)
}

func system_name_to_handle(
    _ descriptor: CInt, _ bytes: UnsafeMutablePointer<UInt8>, _ capacity: UInt32,
    _ length: UnsafeMutablePointer<UInt32>, _ type: UnsafeMutablePointer<CInt>, _ mountID: UnsafeMutablePointer<UInt64>
) -> CInt {
    if injectedFault(.nameToHandleAt, descriptor: descriptor) { return -1 }
    return unsafe qw_name_to_handle(descriptor, bytes, capacity, length, type, mountID)
}

func system_open_by_handle(
    _ mountDescriptor: CInt, _ bytes: UnsafePointer<UInt8>, _ length: UInt32, _ type: CInt
) -> CInt {
    if injectedFault(.openByHandleAt, descriptor: mountDescriptor) { return -1 }
    return unsafe qw_open_by_handle(mountDescriptor, bytes, length, type)
}

func system_file_system_id(_ descriptor: CInt, _ fsid: UnsafeMutablePointer<UInt64>) -> CInt {
    if injectedFault(.fstatfs, descriptor: descriptor) { return -1 }
    return unsafe qw_file_system_id(descriptor, fsid)
}

func system_file_system_kind(
    _ descriptor: CInt, _ type: UnsafeMutablePointer<UInt64>, _ blockSize: UnsafeMutablePointer<UInt64>
) -> CInt {
    if injectedFault(.fstatfs, descriptor: descriptor) { return -1 }
    return unsafe qw_file_system_kind(descriptor, type, blockSize)
}
