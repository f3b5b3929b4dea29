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
///    one component at a time with `O_DIRECTORY | O_NOFOLLOW`, each checked to be on ROOT's
///    device;
/// 3. the last name is `fstatat`'ed without following it and must still be the chosen inode;
/// 4. a file must not be open for writing by any process (`/proc`);
/// 5. the intent is recorded durably, the name is checked once more, and `unlinkat` removes
///    it. A directory is emptied the same way, bottom-up, entry by entry.
///
/// What remains is the instant between the last check and `unlinkat`, inside a directory
/// already held open: a name replaced in that instant is replaced inside ROOT's tree, by a
/// process that could have deleted it anyway.
public struct Deleter: Sendable {
    /// Whether a path relative to ROOT must never be removed.
    public typealias Protection = @Sendable (_ relativePath: [UInt8]) -> Bool
    /// The process holding a file open for writing, or nil.
    public typealias WriterCheck = @Sendable (_ identity: FileIdentity) throws(Errno) -> Int32?

    /// How the directories of a path are opened.
    public enum WalkMethod: Sendable, Equatable {
        /// `openat2` where the kernel has it, else one component at a time.
        case automatic
        case openat2
        case perComponent
    }

    /// ROOT's directory; the caller keeps it open for the deleter's lifetime.
    public let root: FileDescriptor
    public let rootDevice: UInt64
    /// Check everything, record nothing, remove nothing.
    public let dryRun: Bool
    let isProtected: Protection
    let openWriter: WriterCheck
    let usesOpenat2: Bool

    public init(
        root: FileDescriptor, dryRun: Bool, isProtected: @escaping Protection,
        openWriter: WriterCheck? = nil, walk: WalkMethod = .automatic
    ) throws(Errno) {
        self.root = root
        self.rootDevice = try root.status().device
        self.dryRun = dryRun
        self.isProtected = isProtected
        if let openWriter {
            self.openWriter = openWriter
        } else {
            self.openWriter = Self.firstWriterInProc
        }
        switch walk {
        case .automatic: usesOpenat2 = Self.kernelHasOpenat2(root)
        case .openat2: usesOpenat2 = true
        case .perComponent: usesOpenat2 = false
        }
    }

    /// Removes `path` (relative to ROOT, raw bytes) if it still leads to `identity`; a
    /// directory is removed with everything below it that passes the same checks.
    public func remove(
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
        if status.device != rootDevice { return .skipped(.otherDevice(path)) }
        guard FileIdentity(status) == identity else {
            return .skipped(.changedInode(expected: identity, found: FileIdentity(status)))
        }
        var removal = Removal(dryRun: dryRun)
        var links = LinkCounter()
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
        } else if let reason = writerReason(status) {
            return .skipped(reason)
        }
        let result = removeName(
            name, in: parent, path: path, status: status, removal: &removal, links: &links, journal: journal)
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
    public func identity(at path: [UInt8]) -> FileIdentity? {
        guard case .success(let components) = Self.components(of: path),
            case .success(let parent) = openDirectories(components.dropLast())
        else { return nil }
        defer { if parent != root { parent.close() } }
        guard let status = try? parent.status(of: components[components.count - 1]) else { return nil }
        return FileIdentity(status)
    }

    // MARK: Checks

    @Sendable private static func firstWriterInProc(_ identity: FileIdentity) throws(Errno) -> Int32? {
        try OpenWriters.first(device: identity.device, inode: identity.inode)?.processID
    }

    func writerReason(_ status: FileStatus) -> SkipReason? {
        guard status.kind == .regular else { return nil }
        do {
            if let processID = try openWriter(FileIdentity(status)) { return .openForWriting(processID: processID) }
            return nil
        } catch {
            return .openWritersUnknown(error)
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

    // MARK: Walking down from ROOT

    /// Opens the directory `components` lead to from ROOT (ROOT itself when empty).
    func openDirectories(_ components: ArraySlice<[UInt8]>) -> Result<FileDescriptor, Stop> {
        if components.isEmpty { return .success(root) }
        if usesOpenat2 {
            let joined = Array(components.joined(separator: [UInt8(ascii: "/")]))
            switch openBeneath(joined) {
            case .success(let directory):
                // RESOLVE_NO_XDEV already refused other mounts; the check costs one fstat.
                if (try? directory.status().device) == rootDevice { return .success(directory) }
                directory.close()
                return .failure(Stop(.skipped(.otherDevice(joined))))
            case .failure(let error):
                // Walk again component by component: it names the component at fault, and if
                // a swap put the directory back meanwhile, it opens it just as safely.
                let diagnosis = openComponentByComponent(components)
                if case .failure(let stop) = diagnosis, case .failed = stop.outcome {
                    return .failure(Stop(.failed(error)))
                }
                return diagnosis
            }
        }
        return openComponentByComponent(components)
    }

    private func openBeneath(_ path: [UInt8]) -> Result<FileDescriptor, Errno> {
        let flags = UInt64(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        let resolve = UInt64(QW_RESOLVE_BENEATH | QW_RESOLVE_NO_SYMLINKS | QW_RESOLVE_NO_XDEV)
        var attempts = 0
        while true {
            let result: Result<CInt, Errno>
            do {
                result = .success(
                    try unsafe withCString(path) { cPath throws(Errno) in
                        try valueOrErrno { unsafe system_openat2(root.rawValue, cPath, flags, resolve) }.get()
                    })
            } catch {
                result = .failure(error)
            }
            switch result {
            case .success(let raw): return .success(FileDescriptor(rawValue: raw))
            // A rename or mount raced the lookup; the kernel asks to try again.
            case .failure(.resourceTemporarilyUnavailable) where attempts < 8: attempts += 1
            case .failure(let error): return .failure(error)
            }
        }
    }

    private func openComponentByComponent(_ components: ArraySlice<[UInt8]>) -> Result<FileDescriptor, Stop> {
        var current = root
        var walked: [UInt8] = []
        for component in components {
            walked += walked.isEmpty ? component : [UInt8(ascii: "/")] + component
            let status: FileStatus
            do {
                status = try current.status(of: component)
            } catch {
                if current != root { current.close() }
                return .failure(Stop(error == .noSuchFileOrDirectory ? .skipped(.gone(walked)) : .failed(error)))
            }
            let opened = openVerified(component, in: current, path: walked, status: status)
            if current != root { current.close() }
            switch opened {
            case .success(let next): current = next
            case .failure(let reason): return .failure(Stop(.skipped(reason)))
            }
        }
        return .success(current)
    }

    /// Opens the directory `name` in `parent` and checks it is the directory `status`
    /// described, on ROOT's device: never a symlink, never a mount point, never a directory
    /// swapped in after the stat.
    func openVerified(
        _ name: [UInt8], in parent: FileDescriptor, path: [UInt8], status: FileStatus
    ) -> Result<FileDescriptor, SkipReason> {
        switch status.kind {
        case .symlink: return .failure(.symlinkInPath(path))
        case .directory: break
        default: return .failure(.notADirectory(path))
        }
        if status.device != rootDevice { return .failure(.otherDevice(path)) }
        let directory: FileDescriptor
        do {
            directory = try parent.openDirectory(name)
        } catch .noSuchFileOrDirectory {
            return .failure(.gone(path))
        } catch .tooManySymbolicLinks {
            return .failure(.symlinkInPath(path))
        } catch .notDirectory {
            let now = try? parent.status(of: name)
            return .failure(now?.kind == .symlink ? .symlinkInPath(path) : .notADirectory(path))
        } catch {
            return .failure(.cannotRemove(error))
        }
        guard let opened = try? directory.status() else {
            directory.close()
            return .failure(.gone(path))
        }
        if opened.device != rootDevice {
            directory.close()
            return .failure(.otherDevice(path))
        }
        guard FileIdentity(opened) == FileIdentity(status) else {
            directory.close()
            return .failure(.changedInode(expected: FileIdentity(status), found: FileIdentity(opened)))
        }
        return .success(directory)
    }

    private static func kernelHasOpenat2(_ root: FileDescriptor) -> Bool {
        let flags = UInt64(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let raw = unsafe system_openat2(root.rawValue, ".", flags, UInt64(QW_RESOLVE_BENEATH))
        guard raw >= 0 else { return false }  // ENOSYS before 5.6, EPERM under some seccomp filters
        FileDescriptor(rawValue: raw).close()
        return true
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
