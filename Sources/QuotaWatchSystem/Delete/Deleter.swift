import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// The one place QuotaWatch removes files. Every call walks down from ROOT's descriptor anew,
/// so a directory renamed, swapped for a symlink or mounted over since the cleaner chose a
/// name can never redirect the removal outside ROOT or onto another file system:
///
/// 1. the protection predicate is asked first;
/// 2. the path's directories are opened from ROOT with `openat2` (`RESOLVE_BENEATH`,
///    `RESOLVE_NO_SYMLINKS`, `RESOLVE_NO_XDEV`), or where the kernel lacks it (before 5.6)
///    one component at a time with `O_DIRECTORY | O_NOFOLLOW`; every directory opened, and
///    every name removed, must be on ROOT's device and on ROOT's mount (`statx` mount ID): a
///    bind mount of the same file system is a mount point too, and is never crossed;
/// 3. the last name is `fstatat`'ed without following it and must still be the chosen inode;
/// 4. a file must not be written by any process: no descriptor open for writing in any
///    process's or thread's table, no shared writable mapping (`/proc`); where `/proc` cannot
///    show every process, a write lease is taken and held across the unlink (``WriteLease``),
///    or the file is kept;
/// 5. the intent is recorded durably, the name is checked once more, and `unlinkat` removes
///    it. A directory is emptied the same way, bottom-up, entry by entry, with an explicit
///    stack at most ``maximumDepth`` directories deep.
///
/// What remains is the instant between the last check and `unlinkat`, inside a directory
/// already held open: a name replaced in that instant is replaced inside ROOT's tree, by a
/// process that could have deleted it anyway.
package struct Deleter: Sendable {
    /// Whether a path relative to ROOT must never be removed.
    package typealias Protection = @Sendable (_ relativePath: [UInt8]) -> Bool
    /// Who can write a file, as far as `/proc` can tell.
    package typealias WriterCheck = @Sendable (_ identity: FileIdentity) throws(Errno) -> WriterFinding
    /// Who can write each of many files, from one look at `/proc` (a group of removals).
    package typealias GroupWriterCheck =
        @Sendable (_ identities: Set<FileIdentity>) throws(Errno) -> [FileIdentity: WriterFinding]

    /// How many directories deep a tree is emptied; deeper ones are kept (`too_deep`), so that
    /// a hostile tree cannot make the deleter hold more descriptors than this.
    package static let maximumDepth = 256

    /// How the directories of a path are opened.
    package enum WalkMethod: Sendable, Equatable {
        /// `openat2` where the kernel has it, else one component at a time.
        case automatic
        case openat2
        case perComponent
    }

    /// ROOT's directory; the caller keeps it open for the deleter's lifetime.
    package let root: FileDescriptor
    package let rootDevice: UInt64
    /// ROOT's mount: nothing on another one is ever removed.
    let rootMount: MountPlace
    /// Check everything, record nothing, remove nothing.
    package let dryRun: Bool
    let isProtected: Protection
    let openWriter: WriterCheck
    let groupWriters: GroupWriterCheck
    let usesOpenat2: Bool

    /// With `openWriter` and no `groupWriters`, a group's files are each asked of `openWriter`.
    package init(
        root: FileDescriptor, dryRun: Bool, isProtected: @escaping Protection,
        openWriter: WriterCheck? = nil, groupWriters: GroupWriterCheck? = nil, walk: WalkMethod = .automatic
    ) throws(Errno) {
        self.root = root
        self.rootDevice = try root.status().device
        self.rootMount = try root.mountPlace()
        self.dryRun = dryRun
        self.isProtected = isProtected
        if let openWriter {
            self.openWriter = openWriter
            // Not `??`: its autoclosure over a typed-throws function type crashes Swift 6.3's SILGen.
            if let groupWriters {
                self.groupWriters = groupWriters
            } else {
                self.groupWriters = Self.eachAsked(openWriter)
            }
        } else {
            self.openWriter = Self.firstWriterInProc
            if let groupWriters {
                self.groupWriters = groupWriters
            } else {
                self.groupWriters = Self.writersInProc
            }
        }
        switch walk {
        case .automatic: usesOpenat2 = Self.kernelHasOpenat2(root)
        case .openat2: usesOpenat2 = true
        case .perComponent: usesOpenat2 = false
        }
    }

    /// Removes `path` (relative to ROOT, raw bytes) if it still leads to `identity`; a
    /// directory is removed with everything below it that passes the same checks.
    package func remove(
        _ path: [UInt8], expecting identity: FileIdentity, journal: any DeletionJournal
    ) -> DeletionOutcome {
        if isProtected(path) { return .skipped(.protected) }
        let components: [[UInt8]]
        switch Self.components(of: path) {
        case .success(let parsed): components = parsed
        case .failure(let reason): return .skipped(reason)
        }
        let parent: FileDescriptor
        switch openDirectories(components.dropLast()) {
        case .success(let opened): parent = opened
        case .failure(let stop): return stop.outcome
        }
        defer { if parent != root { parent.close() } }
        let name = components[components.count - 1]

        let status: FileStatus
        do {
            status = try parent.status(of: name)
        } catch .noSuchFileOrDirectory {
            return .skipped(.gone(path))
        } catch {
            return .failed(error)
        }
        if let reason = placeReason(name, in: parent, path: path, status: status) { return .skipped(reason) }
        guard FileIdentity(status) == identity else {
            return .skipped(.changedInode(expected: identity, found: FileIdentity(status)))
        }
        if let reason = identity.changeSinceChosen(status) { return .skipped(reason) }
        var removal = Removal(dryRun: dryRun)
        var links = LinkCounter()
        var lease: Int?
        if status.kind == .directory {
            let directory: FileDescriptor
            switch openVerified(name, in: parent, path: path, status: status) {
            case .success(let opened): directory = opened
            case .failure(let reason): return .skipped(reason)
            }
            let emptied = emptyDirectory(directory, path: path, removal: &removal, links: &links, journal: journal)
            directory.close()
            if case .notRecorded(let error) = emptied { return .notRecorded(error) }
            guard removal.kept.isEmpty else { return .removed(removal) }
        } else {
            switch writerVerdict(status) {
            case .clear: break
            case .leaseNeeded(let hidden): lease = hidden
            case .refused(let reason): return .skipped(reason)
            }
        }
        let result = removeName(
            name, in: parent, path: path, status: status, leaseFor: lease, removal: &removal, links: &links,
            journal: journal)
        switch result {
        case .removed: return .removed(removal)
        case .notRecorded(let error): return .notRecorded(error)
        case .kept(let reason) where removal.entries.isEmpty:
            if case .cannotRemove(let error) = reason { return .failed(error) }
            return .skipped(reason)
        case .kept(let reason):
            removal.kept.append(KeptEntry(path: path, reason: reason))
            return .removed(removal)
        }
    }

    /// Where `path` leads now, without following a symlink anywhere, or nil if it is gone or
    /// no longer reachable the safe way. The audit log's recovery asks this.
    package func identity(at path: [UInt8]) -> FileIdentity? {
        guard case .success(let components) = Self.components(of: path),
            case .success(let parent) = openDirectories(components.dropLast())
        else { return nil }
        defer { if parent != root { parent.close() } }
        guard let status = try? parent.status(of: components[components.count - 1]) else { return nil }
        return FileIdentity(status)
    }

    // MARK: Checks

    /// A group's check made of a one-file check, asked for each file.
    static func eachAsked(_ openWriter: @escaping WriterCheck) -> GroupWriterCheck {
        { identities throws(Errno) in
            var findings: [FileIdentity: WriterFinding] = [:]
            for identity in identities { findings[identity] = try openWriter(identity) }
            return findings
        }
    }

    /// One pass over `/proc` for every file of a group.
    @Sendable static func writersInProc(_ identities: Set<FileIdentity>) throws(Errno) -> [FileIdentity: WriterFinding]
    {
        let census = try OpenWriters.writers(of: identities)
        var findings: [FileIdentity: WriterFinding] = [:]
        for identity in identities { findings[identity] = WriterFinding(identity, in: census) }
        return findings
    }

    @Sendable private static func firstWriterInProc(_ identity: FileIdentity) throws(Errno) -> WriterFinding {
        try WriterFinding(identity, in: OpenWriters.census(of: [identity]))
    }

    /// Whether a name (already stat'ed) lies where the deleter may remove it: on ROOT's device
    /// and on ROOT's mount. A same-device bind mount has ROOT's device; its mount ID gives it
    /// away.
    func placeReason(_ name: [UInt8], in parent: FileDescriptor, path: [UInt8], status: FileStatus) -> SkipReason? {
        if status.device != rootDevice { return .otherDevice(path) }
        do {
            if try parent.mountPlace(of: name).isAnotherMount(than: rootMount) { return .mountPoint(path) }
        } catch .noSuchFileOrDirectory {
            return .gone(path)
        } catch {
            return .cannotRemove(error)
        }
        return nil
    }

    /// What the open-for-writing check says about removing a file.
    enum WriterVerdict {
        case clear
        /// `/proc` could not show this many processes: remove only under a write lease.
        case leaseNeeded(hiddenProcesses: Int)
        case refused(SkipReason)
    }

    func writerVerdict(_ status: FileStatus) -> WriterVerdict {
        guard status.kind == .regular else { return .clear }
        return Self.verdict(Result(catching: { () throws(Errno) in try openWriter(FileIdentity(status)) }))
    }

    /// What a finding (or the error asking for it) says about removing a file.
    static func verdict(_ finding: Result<WriterFinding, Errno>) -> WriterVerdict {
        do {
            switch try finding.get() {
            case .noWriter: return .clear
            case .notSeen(let hidden): return .leaseNeeded(hiddenProcesses: hidden)
            case .writer(let writer):
                switch writer.access {
                case .sharedMapping: return .refused(.mappedForWriting(processID: writer.processID))
                case .descriptor:
                    return .refused(.openForWriting(processID: writer.processID, threadID: writer.threadID))
                }
            }
        } catch {
            return .refused(.openWritersUnknown(error))
        }
    }

    /// The components of a relative path; ROOT itself and anything that could step outside it
    /// are refused before any system call.
    static func components(of path: [UInt8]) -> Result<[[UInt8]], SkipReason> {
        let slash = UInt8(ascii: "/")
        if path.isEmpty || path == [UInt8(ascii: ".")] { return .failure(.root) }
        if path.first == slash { return .failure(.outsideRoot) }
        var parts = path.split(separator: slash, omittingEmptySubsequences: false).map(Array.init)
        if parts.last == [] { parts.removeLast() }  // one trailing slash: "dir/"
        for part in parts where part.isEmpty || part == [0x2e] || part == [0x2e, 0x2e] || part.contains(0) {
            return .failure(.outsideRoot)
        }
        return .success(parts)
    }
}

/// Why a walk stopped, as the outcome the caller returns.
struct Stop: Error {
    let outcome: DeletionOutcome
    init(_ outcome: DeletionOutcome) { self.outcome = outcome }
}

/// Counts, per hard-linked inode, how many of its names this removal took, so its blocks
/// count as freed only with its last name.
struct LinkCounter {
    private var removedNames: [FileIdentity: UInt64] = [:]

    /// The bytes that removing one more name of `entry` gives back to the file system.
    mutating func freedByRemoving(_ entry: DeletionEntry) -> UInt64 {
        if entry.kind == .directory || entry.linkCount <= 1 { return entry.allocatedBytes }
        let removed = removedNames[entry.identity, default: 0] + 1
        removedNames[entry.identity] = removed
        return removed == entry.linkCount ? entry.allocatedBytes : 0
    }
}
