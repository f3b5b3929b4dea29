import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// Answers "is this file being written by any process?" from `/proc`, the way `fuser` and
/// `lsof` do, and more: a process writes a file through
///
/// - a descriptor in its own table (`/proc/PID/fd/N`, stat'ed to follow it to the open file;
///   `/proc/PID/fdinfo/N` says whether it was opened for writing);
/// - a descriptor in the table of one of its threads that unshared its table
///   (`unshare(CLONE_FILES)`): `/proc/PID/task/TID/fd`, read for every thread `kcmp` says does
///   not share the process's table;
/// - a shared writable mapping (`mmap(MAP_SHARED, PROT_WRITE)`), which outlives the
///   descriptor it was made from: `/proc/PID/maps`, permissions `w` and `s`, matched by the
///   device and inode it prints.
///
/// Processes that exit during the scan are skipped. Processes whose descriptors may not be
/// read (without root or `CAP_SYS_PTRACE`: every other user's) are counted as hidden, so that
/// a caller about to delete knows `/proc` could not answer for them (see ``WriteLease``).
package enum OpenWriters {
    /// One way, in one process, through which the file can be written.
    package struct Writer: Sendable, Equatable, CustomStringConvertible {
        package enum Access: Sendable, Equatable {
            /// A descriptor opened for writing, by number.
            case descriptor(Int32)
            /// A shared writable mapping.
            case sharedMapping
        }

        package var processID: Int32
        /// The thread whose own descriptor table holds it; nil for the process's table.
        package var threadID: Int32?
        package var access: Access

        package init(processID: Int32, threadID: Int32? = nil, access: Access) {
            self.processID = processID
            self.threadID = threadID
            self.access = access
        }

        package init(processID: Int32, descriptor: Int32) {
            self.init(processID: processID, access: .descriptor(descriptor))
        }

        package var description: String {
            switch (access, threadID) {
            case (.sharedMapping, _): "mapped shared and writable by pid \(processID)"
            case (.descriptor, let thread?):
                "open for writing by pid \(processID) (thread \(thread), own descriptor table)"
            case (.descriptor, nil): "open for writing by pid \(processID)"
            }
        }
    }

    /// What one pass over `/proc` found.
    package struct Census: Sendable, Equatable {
        /// Every regular file some process can write, with one such writer.
        package var writers: [FileIdentity: Writer]
        /// Processes whose descriptors could not be read (EACCES, EPERM): `/proc` cannot say
        /// whether they write anything.
        package var hiddenProcesses: Int

        package init(writers: [FileIdentity: Writer] = [:], hiddenProcesses: Int = 0) {
            self.writers = writers
            self.hiddenProcesses = hiddenProcesses
        }
    }

    /// The first writer found of the file `device`/`inode`, or nil. Throws only when `/proc`
    /// itself cannot be listed.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `fstatat`, `read` and `kcmp`.
    package static func first(device: UInt64, inode: UInt64) throws(Errno) -> Writer? {
        let target = FileIdentity(device: device, inode: inode)
        return try census(of: [target]).writers[target]
    }

    /// One pass over `/proc` for many files at once (a group of removals): a writer of each
    /// of `targets` that has one, and the processes `/proc` could not show. The pass stops
    /// early only when every target has a writer.
    package static func writers(of targets: Set<FileIdentity>) throws(Errno) -> Census {
        try census(of: targets)
    }

    /// One pass over `/proc`: every writer of every file, or with `targets` only those, until
    /// each has one.
    static func census(of targets: Set<FileIdentity>?) throws(Errno) -> Census {
        let proc = try FileDescriptor.currentWorkingDirectory.openDirectory(Array("/proc".utf8), followSymlinks: true)
        defer { proc.close() }
        var scanner = ProcScanner(proc: proc, targets: targets)
        for name in try DirectoryEntries.names(of: proc) {
            guard let processID = Int32(decimal: name) else { continue }
            scanner.scanProcess(name, processID: processID)
            if scanner.isDone { break }
        }
        return scanner.census
    }

    /// The octal `flags:` line of a `/proc/PID/fdinfo/N` file: the descriptor's open flags.
    static func openFlags(in proc: FileDescriptor, fdinfo path: [UInt8]) throws(Errno) -> UInt32? {
        let raw = try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_openat(proc.rawValue, cPath, O_RDONLY | O_CLOEXEC, 0) }.get()
        }
        let file = FileDescriptor(rawValue: raw)
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = try unsafe bytes.withUnsafeMutableBytes { buffer in
            valueOrErrno { unsafe system_read(raw, buffer.baseAddress!, buffer.count) }
        }.get()
        for line in bytes[..<count].split(separator: UInt8(ascii: "\n")) {
            let prefix = Array("flags:".utf8)
            guard line.starts(with: prefix) else { continue }
            let digits = line.dropFirst(prefix.count).filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
            return UInt32(String(decoding: digits, as: UTF8.self), radix: 8)
        }
        return nil
    }
}

extension FileDescriptor {
    /// The status of what `name` leads to, following a symlink (for `/proc/PID/fd/N`: the
    /// open file itself).
    ///
    /// The corresponding C function is `fstatat` without `AT_SYMLINK_NOFOLLOW`.
    func statusFollowingSymlink(of name: [UInt8]) throws(Errno) -> FileStatus {
        var raw = stat()
        try unsafe withCString(name) { path throws(Errno) in
            _ = try valueOrErrno { unsafe system_fstatat(rawValue, path, &raw, 0) }.get()
        }
        return FileStatus(raw)
    }
}

extension Int32 {
    /// A plain decimal number of ASCII digits, as `/proc` names processes and descriptors.
    init?(decimal bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        self = bytes.reduce(0) { $0 * 10 + Int32($1 - 0x30) }
    }
}
