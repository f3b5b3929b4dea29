import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// Answers "is this file open for writing by any process?" from `/proc`, the way `fuser` and
/// `lsof` do: every `/proc/PID/fd/N` link is stat'ed (which follows it to the open file) and, for
/// the ones that are the file, `/proc/PID/fdinfo/N` says whether it was opened for writing.
///
/// The cost is one stat per open descriptor on the machine, so it is meant for one file at a
/// deadline, not for every event. Processes that exit during the scan are skipped, as are
/// processes whose descriptors may not be read: without root (or CAP_SYS_PTRACE) that means
/// every other user's processes, which are then not seen. Writable shared memory mappings of
/// the file, and threads that unshared their descriptor table, are not descriptors of the
/// process and are not seen either.
public enum OpenWriters {
    /// One open descriptor, in one process, through which the file can be written.
    public struct Writer: Sendable, Equatable {
        public var processID: Int32
        public var descriptor: Int32

        public init(processID: Int32, descriptor: Int32) {
            self.processID = processID
            self.descriptor = descriptor
        }
    }

    /// The first process found holding the file `device`/`inode` open for writing, or nil.
    /// Throws only when `/proc` itself cannot be listed.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `fstatat` and `read`.
    public static func first(device: UInt64, inode: UInt64) throws(Errno) -> Writer? {
        let proc = try FileDescriptor.currentWorkingDirectory.openDirectory(Array("/proc".utf8), followSymlinks: true)
        defer { proc.close() }
        for name in try entryNames(of: proc) {
            guard let processID = Int32(decimal: name) else { continue }
            if let descriptor = writableDescriptor(in: proc, process: name, device: device, inode: inode) {
                return Writer(processID: processID, descriptor: descriptor)
            }
        }
        return nil
    }

    /// One process's descriptor that is the file and was opened for writing; nil if none, or
    /// if the process has gone or hides its descriptors.
    private static func writableDescriptor(
        in proc: FileDescriptor, process: [UInt8], device: UInt64, inode: UInt64
    ) -> Int32? {
        guard let descriptors = try? proc.openDirectory(process + Array("/fd".utf8)) else { return nil }
        defer { descriptors.close() }
        guard let names = try? entryNames(of: descriptors) else { return nil }
        for name in names {
            guard let number = Int32(decimal: name),
                let target = try? descriptors.statusFollowingSymlink(of: name),
                target.device == device && target.inode == inode
            else { continue }
            let info = process + Array("/fdinfo/".utf8) + name
            guard let flags = try? openFlags(in: proc, fdinfo: info) else { continue }
            let access = flags & UInt32(O_ACCMODE)
            if access == UInt32(O_WRONLY) || access == UInt32(O_RDWR) { return number }
        }
        return nil
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

    /// Every name in a directory but "." and "..", read with `getdents64`.
    static func entryNames(of directory: FileDescriptor) throws(Errno) -> [[UInt8]] {
        var names: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while true {
            let count = try unsafe buffer.withUnsafeMutableBytes { raw in
                valueOrErrno { unsafe system_getdents64(directory.rawValue, raw.baseAddress!, raw.count) }
            }.get()
            if count == 0 { return names }
            var offset = 0
            while offset < count {
                let recordLength =
                    Int(buffer[offset + Int(QW_DIRENT_RECLEN_OFFSET)])
                    | Int(buffer[offset + Int(QW_DIRENT_RECLEN_OFFSET) + 1]) << 8
                let nameStart = offset + Int(QW_DIRENT_NAME_OFFSET)
                let nameEnd = buffer[nameStart..<(offset + recordLength)].firstIndex(of: 0) ?? offset + recordLength
                let name = Array(buffer[nameStart..<nameEnd])
                if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
                offset += recordLength
            }
        }
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
    fileprivate init?(decimal bytes: [UInt8]) {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        self = bytes.reduce(0) { $0 * 10 + Int32($1 - 0x30) }
    }
}
