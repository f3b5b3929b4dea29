/// The calls of the chokepoint (Syscalls.swift), one case per `system_*` wrapper (the two
/// `pipe2` wrappers share `.pipe2`): what a ``FaultPlan`` fails and what its trace records.
package enum SystemCall: String, Sendable, Hashable, CaseIterable {
    case openat, openat2, close, fstatat, statx, getdents64, read, pread, write, readlinkat
    case isatty, getrlimit, setrlimit, mallopt, mallocTrim
    case inotifyInit1, inotifyAddWatch, inotifyRmWatch, poll, pipe2, eventfd
    case unlinkat, mknodat, renameat, mkdirat, fchmod, fchmodat, flock, fcntl, fdatasync, fstatvfs, ftruncate
    case pthreadSigmask, signalfd, signal, sigaction, clockGettime, getpid, geteuid
    case socket, bind, listen, connect, accept4, send, recv, shutdown, setsockopt, getsockopt, getsockname
    case inetPton
    case spawn, pidfdOpen, kill, waitpid, waitid, kcmp
    case fanotifyInit, fanotifyMark, nameToHandleAt, openByHandleAt, fstatfs
}
