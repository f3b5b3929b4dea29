import Glibc
import QuotaWatchCore
import Synchronization

extension OpenWriters {
    /// Every regular file some process holds open for writing, with one such process: one
    /// pass over `/proc` for all of them, where ``first(device:inode:)`` makes one pass per
    /// file. Throws only when `/proc` itself cannot be listed.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `fstatat` and `read`.
    public static func snapshot() throws(Errno) -> [FileIdentity: Int32] {
        let proc = try FileDescriptor.currentWorkingDirectory.openDirectory(Array("/proc".utf8), followSymlinks: true)
        defer { proc.close() }
        var writers: [FileIdentity: Int32] = [:]
        for process in try entryNames(of: proc) {
            guard !process.isEmpty, process.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), process.count <= 9,
                let descriptors = try? proc.openDirectory(process + Array("/fd".utf8))
            else { continue }
            defer { descriptors.close() }
            let processID = process.reduce(Int32(0)) { $0 * 10 + Int32($1 - 0x30) }
            for name in (try? entryNames(of: descriptors)) ?? [] {
                guard let target = try? descriptors.statusFollowingSymlink(of: name), target.kind == .regular,
                    writers[FileIdentity(target)] == nil,
                    let flags = try? openFlags(in: proc, fdinfo: process + Array("/fdinfo/".utf8) + name)
                else { continue }
                let access = flags & UInt32(O_ACCMODE)
                if access == UInt32(O_WRONLY) || access == UInt32(O_RDWR) { writers[FileIdentity(target)] = processID }
            }
        }
        return writers
    }
}

/// The open-for-writing check for many files in a row (a selection of `quotawatch clean`):
/// `/proc` is read at most once per `maximumAge` instead of once per file. A pass costs about
/// as much as one ``OpenWriters/first(device:inode:)``, 10 ms with 1 300 open descriptors on
/// the machine; the price is that a file opened for writing less than `maximumAge` before its
/// turn may be missed.
public final class OpenWritersSnapshot: Sendable {
    private struct State {
        var takenAt: ContinuousClock.Instant?
        var writers: [FileIdentity: Int32] = [:]
    }

    /// Reads every writer at once: ``OpenWriters/snapshot()``, or a test's stand-in.
    public typealias Reading = @Sendable () throws(Errno) -> [FileIdentity: Int32]

    private let state = Mutex(State())
    private let maximumAge: Duration
    private let read: Reading

    public init(maximumAge: Duration = .milliseconds(100), read: @escaping Reading = OpenWriters.snapshot) {
        self.maximumAge = maximumAge
        self.read = read
    }

    /// The process holding `identity` open for writing in a reading of `/proc` at most
    /// `maximumAge` old, or nil.
    public func check(_ identity: FileIdentity) throws(Errno) -> Int32? {
        let now = ContinuousClock.now
        let result: Result<Int32?, Errno> = state.withLock { state in
            if let takenAt = state.takenAt, now - takenAt < maximumAge { return .success(state.writers[identity]) }
            do throws(Errno) {
                state.writers = try read()
            } catch {
                return .failure(error)
            }
            state.takenAt = now
            return .success(state.writers[identity])
        }
        return try result.get()
    }
}

extension Deleter {
    /// A deleter whose open-for-writing check asks `writers`, shared by every deleter of a run.
    ///
    /// An eviction checks every name it picks, and in a directory far over its quota that is
    /// nearly every name in it: tens of thousands in a large cache, in a dry run as in a real
    /// one. Asking `/proc` for each (``OpenWriters/first(device:inode:)``, one stat per open
    /// descriptor on the machine, about 2 ms with a few thousand) made such a run outlive the
    /// runner's timeout and report nothing; one reading per 100 ms serves them all (a file
    /// opened for writing less than that before its turn may be missed; every other check is
    /// unchanged).
    public init(
        root: FileDescriptor, dryRun: Bool, isProtected: @escaping Protection, writers: OpenWritersSnapshot
    ) throws(Errno) {
        try self.init(
            root: root, dryRun: dryRun, isProtected: isProtected,
            openWriter: { identity throws(Errno) in try writers.check(identity) })
    }
}
