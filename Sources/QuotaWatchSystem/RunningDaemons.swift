import Glibc
import QuotaWatchCore

/// The other `quotawatch run` and `quotawatch watch` processes on this machine, found as `ps`
/// finds them: from `/proc/PID/cmdline`. `watch ROOT` asks, before it crawls ROOT in an engine
/// of its own, whether one of them already serves ROOT at a socket other than the default
/// (a unit or a script that passes `--socket`), so it can say so and attach instead.
package enum RunningDaemons {
    package struct Daemon: Sendable, Equatable {
        package var processID: Int32
        /// The `--socket` of this root; nil when it listens at the root's default path.
        package var socket: [UInt8]?
        /// Every `--socket` value, in order: a daemon serving several roots has one per root.
        package var sockets: [[UInt8]] = []
        /// The user it runs as (the owner of `/proc/PID`).
        package var userID: UInt32 = 0
        /// This root, absolute with symlinks resolved; nil when the kernel would not say.
        package var root: [UInt8]?
    }

    /// The daemons whose ROOT is the directory `root` (compared by device and inode, so a
    /// relative or symlinked spelling matches), other than this process; a daemon serving
    /// several roots is found by any of them, with that root's socket. Processes whose
    /// command line or working directory cannot be read are passed over.
    ///
    /// - Parameter optionsTakingValues: the names of `run`'s and `watch`'s options that take a
    ///   value, so that a value (`--workers 4`) is not read as a ROOT.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `read` and `fstatat`.
    package static func serving(root: FileStatus, optionsTakingValues: Set<[UInt8]>) -> [Daemon] {
        all(optionsTakingValues) { $0.device == root.device && $0.inode == root.inode }
    }

    /// Every root served (`run` and `watch` with a ROOT), other than by this process, in
    /// process-id order, a daemon serving several once per root: what a client lists when it
    /// is not told which one to ask.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `read`, `fstatat` and
    /// `readlinkat`.
    package static func running(optionsTakingValues: Set<[UInt8]>) -> [Daemon] {
        all(optionsTakingValues) { _ in true }.sorted { $0.processID < $1.processID }
    }

    private static func all(_ optionsTakingValues: Set<[UInt8]>, whoseRoot matches: (FileStatus) -> Bool) -> [Daemon] {
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
                let invocation = Invocation(cmdline: cmdline, optionsTakingValues: optionsTakingValues)
            else { continue }
            let owner = try? UnixSocket.ownership(at: Array("/proc/".utf8) + name, followSymlinks: false)
            for (index, given) in invocation.roots.enumerated() {
                guard let root = openRoot(given, process: name, in: proc) else { continue }
                defer { root.close() }
                guard let status = try? root.status(), matches(status) else { continue }
                found.append(
                    Daemon(
                        processID: processID, socket: invocation.socket(ofRootAt: index),
                        sockets: invocation.sockets, userID: owner?.ownerID ?? 0, root: root.canonicalPath))
            }
        }
        return found
    }

    /// What a command line says, when it is `quotawatch run|watch ROOT…`: read the way the
    /// command's own parser reads it (`--name value`, `--name=value`, `--` ending the options),
    /// except that an option it does not know is taken for a flag, so a daemon started by
    /// another version is still found.
    package struct Invocation: Equatable {
        package var roots: [[UInt8]] = []
        /// Every `--socket` value, in order: one per root, or none (each root's default).
        package var sockets: [[UInt8]] = []

        package init?(cmdline: [UInt8], optionsTakingValues: Set<[UInt8]>) {
            let words = cmdline.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
            guard words.count >= 3,
                words[0].split(separator: UInt8(ascii: "/")).last.map(Array.init) == Array("quotawatch".utf8),
                words[1] == Array("run".utf8) || words[1] == Array("watch".utf8)
            else { return nil }
            let socketOption = Array("--socket".utf8)
            var index = 2
            var onlyRoots = false
            while index < words.count {
                let word = words[index]
                index += 1
                if onlyRoots || word.first != UInt8(ascii: "-") || word == [UInt8(ascii: "-")] {
                    if !word.isEmpty { roots.append(word) }
                    continue
                }
                if word == Array("--".utf8) {
                    onlyRoots = true
                    continue
                }
                if let equals = word.firstIndex(of: UInt8(ascii: "=")) {
                    if Array(word[..<equals]) == socketOption { sockets.append(Array(word[(equals + 1)...])) }
                } else if optionsTakingValues.contains(word), index < words.count {
                    if word == socketOption { sockets.append(words[index]) }
                    index += 1
                }
            }
            guard !roots.isEmpty else { return nil }
        }

        /// The socket of the root at `index`: its own `--socket` when one is given per root;
        /// nil for the default path.
        package func socket(ofRootAt index: Int) -> [UInt8]? {
            sockets.count == roots.count ? sockets[index] : nil
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
