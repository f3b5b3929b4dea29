import Glibc
import QuotaWatchCore

/// The other `quotawatch run` and `quotawatch watch` processes on this machine, found as `ps`
/// finds them: from `/proc/PID/cmdline`. `watch ROOT` asks, before it crawls ROOT in an engine
/// of its own, whether one of them already serves ROOT at a socket other than the default
/// (a unit or a script that passes `--socket`), so it can say so and attach instead.
package enum RunningDaemons {
    package struct Daemon: Sendable, Equatable {
        package var processID: Int32
        /// Its `--socket` value; nil when it listens at the default path.
        package var socket: [UInt8]?
        /// Every `--socket` value, in order: a daemon serving several roots has one per root.
        package var sockets: [[UInt8]] = []
        /// The user it runs as (the owner of `/proc/PID`).
        package var userID: UInt32 = 0
        /// Its ROOT, absolute with symlinks resolved; nil when the kernel would not say.
        package var root: [UInt8]?
    }

    /// The daemons whose ROOT is the directory `root` (compared by device and inode, so a
    /// relative or symlinked spelling matches), other than this process. Processes whose
    /// command line or working directory cannot be read are passed over.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `read` and `fstatat`.
    package static func serving(root: FileStatus) -> [Daemon] {
        all { $0.device == root.device && $0.inode == root.inode }
    }

    /// Every daemon running (`run` and `watch` with a ROOT), other than this process, in
    /// process-id order: what a client lists when it is not told which one to ask.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `read`, `fstatat` and
    /// `readlinkat`.
    package static func running() -> [Daemon] {
        all { _ in true }.sorted { $0.processID < $1.processID }
    }

    private static func all(whoseRoot matches: (FileStatus) -> Bool) -> [Daemon] {
        guard
            let proc = try? FileDescriptor.currentWorkingDirectory.openDirectory(
                Array("/proc".utf8), followSymlinks: true),
            let names = try? DirectoryEntries.names(of: proc)
        else { return [] }
        defer { proc.close() }
        let me = ProcessIdentity.processID
        var found: [Daemon] = []
        for name in names {
            guard let processID = Int32(String(decoding: name, as: UTF8.self)), processID != me,
                let cmdline = try? SmallFile.read(bytes: Array("/proc/".utf8) + name + Array("/cmdline".utf8)),
                let invocation = Invocation(cmdline: cmdline),
                let root = openRoot(invocation.root, process: name, in: proc)
            else { continue }
            defer { root.close() }
            guard let status = try? root.status(), matches(status) else { continue }
            let owner = try? UnixSocket.ownership(at: Array("/proc/".utf8) + name, followSymlinks: false)
            found.append(
                Daemon(
                    processID: processID, socket: invocation.socket, sockets: invocation.sockets,
                    userID: owner?.ownerID ?? 0, root: root.canonicalPath))
        }
        return found
    }

    /// What a command line says, when it is `quotawatch run|watch ROOT …`.
    struct Invocation: Equatable {
        var root: [UInt8]
        var socket: [UInt8]?
        var sockets: [[UInt8]] = []

        init?(cmdline: [UInt8]) {
            let words = cmdline.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
            guard words.count >= 3,
                words[0].split(separator: UInt8(ascii: "/")).last.map(Array.init) == Array("quotawatch".utf8),
                words[1] == Array("run".utf8) || words[1] == Array("watch".utf8)
            else { return nil }
            var root: [UInt8]?
            var socket: [UInt8]?
            var index = 2
            while index < words.count {
                let word = words[index]
                index += 1
                if word == Array("--socket".utf8), index < words.count {
                    socket = words[index]
                    sockets.append(words[index])
                    index += 1
                } else if word.starts(with: Array("--socket=".utf8)) {
                    socket = Array(word.dropFirst(9))
                    sockets.append(Array(word.dropFirst(9)))
                } else if root == nil, !word.isEmpty, word.first != UInt8(ascii: "-") {
                    root = word
                }
            }
            guard let root else { return nil }
            self.root = root
            self.socket = socket
        }
    }

    /// The ROOT a process was given, resolved as that process resolved it: from its working
    /// directory when relative.
    private static func openRoot(_ root: [UInt8], process: [UInt8], in proc: FileDescriptor) -> FileDescriptor? {
        if root.first == UInt8(ascii: "/") {
            return try? FileDescriptor.currentWorkingDirectory.openDirectory(root, followSymlinks: true)
        }
        guard let cwd = try? proc.openDirectory(process + Array("/cwd".utf8), followSymlinks: true) else { return nil }
        defer { cwd.close() }
        return try? cwd.openDirectory(root, followSymlinks: true)
    }
}
