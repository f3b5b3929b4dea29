import Glibc
import QuotaWatchCore
import Synchronization

extension OpenWriters {
    /// Every regular file some process can write, with one writer each, and how many processes
    /// `/proc` could not show: one pass for all of them, where ``first(device:inode:)`` makes
    /// one pass per file. Throws only when `/proc` itself cannot be listed.
    ///
    /// The corresponding C functions are `openat`, `getdents64`, `fstatat`, `read` and `kcmp`.
    package static func snapshot() throws(Errno) -> Census {
        try census(of: nil)
    }
}

/// What the open-for-writing check found for one file.
package enum WriterFinding: Sendable, Equatable {
    /// `/proc` showed every process, and none can write it.
    case noWriter
    case writer(OpenWriters.Writer)
    /// No writer among the processes `/proc` shows, but this many could not be read: the
    /// deleter asks the kernel instead (``WriteLease``).
    case notSeen(hiddenProcesses: Int)

    /// The finding for `identity` in a census.
    package init(_ identity: FileIdentity, in census: OpenWriters.Census) {
        if let writer = census.writers[identity] {
            self = .writer(writer)
        } else {
            self = census.hiddenProcesses > 0 ? .notSeen(hiddenProcesses: census.hiddenProcesses) : .noWriter
        }
    }

    package var writer: OpenWriters.Writer? {
        if case .writer(let writer) = self { return writer }
        return nil
    }
}

/// The open-for-writing check for many files in a row (a selection of `quotawatch clean`):
/// `/proc` is read at most once per `maximumAge` instead of once per file. A pass costs about
/// as much as one ``OpenWriters/first(device:inode:)`` (descriptor tables, threads' own tables
/// and every `maps`: about 165 ms for 155 processes, 2 100 descriptors and 12 000 mappings in a
/// debug build under a load average of 15, 75 ms of it the descriptor tables); the price is that a file opened for writing less than `maximumAge` (counted
/// from the end of the reading, so that a slow reading is not taken again for every file)
/// before its turn may be missed. Where `/proc` cannot show every process, the deleter's write
/// lease closes that window too.
package final class OpenWritersSnapshot: Sendable {
    private struct State {
        var takenAt: ContinuousClock.Instant?
        var census = OpenWriters.Census()
    }

    /// Reads every writer at once: ``OpenWriters/snapshot()``, or a test's stand-in.
    package typealias Reading = @Sendable () throws(Errno) -> OpenWriters.Census

    private let state = Mutex(State())
    private let maximumAge: Duration
    private let read: Reading

    package init(maximumAge: Duration = .milliseconds(100), read: @escaping Reading = OpenWriters.snapshot) {
        self.maximumAge = maximumAge
        self.read = read
    }

    /// What a reading of `/proc` at most `maximumAge` old says about `identity`.
    package func check(_ identity: FileIdentity) throws(Errno) -> WriterFinding {
        try check(all: [identity])[identity] ?? .noWriter
    }

    /// What one reading of `/proc`, at most `maximumAge` old, says about each of `identities`
    /// (a group of removals): at most one reading for all of them.
    package func check(all identities: Set<FileIdentity>) throws(Errno) -> [FileIdentity: WriterFinding] {
        let now = ContinuousClock.now
        let result: Result<OpenWriters.Census, Errno> = state.withLock { state in
            if let takenAt = state.takenAt, now - takenAt < maximumAge { return .success(state.census) }
            do throws(Errno) {
                state.census = try read()
            } catch {
                return .failure(error)
            }
            state.takenAt = ContinuousClock.now
            return .success(state.census)
        }
        let census = try result.get()
        var findings: [FileIdentity: WriterFinding] = [:]
        for identity in identities { findings[identity] = WriterFinding(identity, in: census) }
        return findings
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
    package init(
        root: FileDescriptor, dryRun: Bool, isProtected: @escaping Protection, writers: OpenWritersSnapshot
    ) throws(Errno) {
        // A group (``removeGroup(_:journal:)``) asks the reading once for all its files.
        try self.init(
            root: root, dryRun: dryRun, isProtected: isProtected,
            openWriter: { identity throws(Errno) in try writers.check(identity) },
            groupWriters: { identities throws(Errno) in try writers.check(all: identities) })
    }
}
