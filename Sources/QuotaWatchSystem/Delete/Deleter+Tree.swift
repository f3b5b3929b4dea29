import Glibc
import QuotaWatchCore

extension Deleter {
    /// What became of one name.
    enum NameResult {
        case removed
        case kept(SkipReason)
        case notRecorded(DeletionJournalError)
    }

    /// One directory being emptied: its descriptor, the names listed in it, and how far the
    /// walk has got through them.
    private struct Level {
        let directory: FileDescriptor
        let path: [UInt8]
        let names: [[UInt8]]
        var next = 0
        /// `removal.kept.count` when this level was entered: more means it cannot go.
        let keptBefore: Int
        /// The directory's own name and status in the level above; nil for the top one.
        let name: [UInt8]?
        let status: FileStatus?
    }

    /// Removes every entry below the open `directory` (at `path` under ROOT) that passes the
    /// checks, deepest first; entries that do not are noted in `removal.kept`. Stops only when
    /// an intent cannot be recorded.
    ///
    /// The walk keeps its own stack of open directories instead of recursing, at most
    /// ``maximumDepth`` deep: a tree nested deeper keeps its deep part (`too_deep`) rather than
    /// exhausting the stack or the descriptors.
    func emptyDirectory(
        _ directory: FileDescriptor, path: [UInt8], removal: inout Removal, links: inout LinkCounter,
        journal: any DeletionJournal
    ) -> NameResult {
        let names: [[UInt8]]
        do {
            names = try DirectoryEntries.names(of: directory)
        } catch {
            removal.kept.append(KeptEntry(path: path, reason: .cannotRemove(error)))
            return .kept(.cannotRemove(error))
        }
        var stack = [
            Level(
                directory: directory, path: path, names: names, keptBefore: removal.kept.count, name: nil, status: nil)
        ]
        // The top directory is the caller's to close; every level pushed here is ours.
        defer { for level in stack.dropFirst() { level.directory.close() } }
        while let level = stack.last {
            guard level.next < level.names.count else {
                stack.removeLast()
                guard let name = level.name, let status = level.status else { return .removed }
                level.directory.close()
                let result: NameResult =
                    removal.kept.count > level.keptBefore
                    ? .kept(.notEmpty)
                    : removeName(
                        name, in: stack[stack.count - 1].directory, path: level.path, status: status, leaseFor: nil,
                        removal: &removal, links: &links, journal: journal)
                if case .notRecorded = result { return result }
                if case .kept(let reason) = result { removal.kept.append(KeptEntry(path: level.path, reason: reason)) }
                continue
            }
            let name = level.names[level.next]
            stack[stack.count - 1].next += 1
            let childPath = level.path + [UInt8(ascii: "/")] + name
            switch enter(name, in: level.directory, path: childPath, depth: stack.count) {
            case .gone: continue
            case .kept(let reason): removal.kept.append(KeptEntry(path: childPath, reason: reason))
            case .directory(let child, let childNames, let status):
                stack.append(
                    Level(
                        directory: child, path: childPath, names: childNames, keptBefore: removal.kept.count,
                        name: name, status: status))
            case .file(let status, let lease):
                let result = removeName(
                    name, in: level.directory, path: childPath, status: status, leaseFor: lease, removal: &removal,
                    links: &links, journal: journal)
                if case .notRecorded = result { return result }
                if case .kept(let reason) = result { removal.kept.append(KeptEntry(path: childPath, reason: reason)) }
            }
        }
        return .removed
    }

    /// What one entry inside a tree turned out to be.
    private enum Entry {
        /// Someone else removed it: nothing left to do.
        case gone
        case kept(SkipReason)
        /// A directory, opened and listed, to be emptied before it is removed.
        case directory(FileDescriptor, names: [[UInt8]], status: FileStatus)
        /// Anything else, to be removed (under a write lease when `/proc` could not show
        /// this many processes).
        case file(FileStatus, leaseFor: Int?)
    }

    /// One entry inside a directory tree: checked like a path given by a cleaner, except
    /// that the inode expected is the one just stat'ed.
    private func enter(_ name: [UInt8], in directory: FileDescriptor, path: [UInt8], depth: Int) -> Entry {
        if isProtected(path) { return .kept(.protected) }
        let status: FileStatus
        do {
            status = try directory.status(of: name)
        } catch .noSuchFileOrDirectory {
            return .gone
        } catch {
            return .kept(.cannotRemove(error))
        }
        if let reason = placeReason(name, in: directory, path: path, status: status) {
            return reason == .gone(path) ? .gone : .kept(reason)
        }
        guard status.kind == .directory else {
            switch writerVerdict(status) {
            case .clear: return .file(status, leaseFor: nil)
            case .leaseNeeded(let hidden): return .file(status, leaseFor: hidden)
            case .refused(let reason): return .kept(reason)
            }
        }
        if depth >= Self.maximumDepth { return .kept(.tooDeep(path)) }
        let child: FileDescriptor
        switch openVerified(name, in: directory, path: path, status: status) {
        case .success(let opened): child = opened
        case .failure(let reason): return .kept(reason)
        }
        do {
            return .directory(child, names: try DirectoryEntries.names(of: child), status: status)
        } catch {
            child.close()
            return .kept(.cannotRemove(error))
        }
    }

    /// Records the intent, checks the name once more, removes it and records the outcome; in
    /// a dry run only notes what would go. With `leaseFor`, the number of processes `/proc`
    /// could not show, a write lease must be had first and is held until the name is gone
    /// (taken in a dry run too, so that it says what a real run would do).
    func removeName(
        _ name: [UInt8], in directory: FileDescriptor, path: [UInt8], status: FileStatus, leaseFor hidden: Int?,
        removal: inout Removal, links: inout LinkCounter, journal: any DeletionJournal
    ) -> NameResult {
        var lease: WriteLease?
        if let hidden {
            switch takeLease(name, in: directory, path: path, status: status, hidden: hidden) {
            case .success(let taken): lease = taken
            case .failure(let reason): return .kept(reason)
            }
        }
        defer { lease?.release() }
        let entry = DeletionEntry(status, path: path)
        if dryRun {
            removal.entries.append(entry)
            removal.freedBytes = Saturating.sum(removal.freedBytes, links.freedByRemoving(entry))
            return .removed
        }
        do {
            try journal.recordIntent(entry)
        } catch {
            return .notRecorded(error)
        }
        let kept = unlinkRecorded(name, in: directory, entry: entry, lease: lease, hidden: hidden)
        journal.recordOutcome(entry, failure: kept)
        if let kept { return .kept(kept) }
        removal.entries.append(entry)
        removal.freedBytes = Saturating.sum(removal.freedBytes, links.freedByRemoving(entry))
        return .removed
    }

    /// A write lease on the file `name`, for a removal `/proc` could not clear (`hidden`
    /// processes it could not show), or why the file is kept.
    func takeLease(
        _ name: [UInt8], in directory: FileDescriptor, path: [UInt8], status: FileStatus, hidden: Int
    ) -> Result<WriteLease, SkipReason> {
        switch WriteLease.take(name, in: directory, identity: FileIdentity(status)) {
        case .success(let taken): return .success(taken)
        case .failure(.resourceTemporarilyUnavailable): return .failure(.openUnseen(hiddenProcesses: hidden))
        case .failure(.noSuchFileOrDirectory): return .failure(.gone(path))
        case .failure(let error): return .failure(.writersUnverifiable(hiddenProcesses: hidden, lease: error))
        }
    }

    /// After its intent is on disk: checks once more that `name` is the inode recorded (and
    /// that the lease, if any, is intact), then unlinks it. Returns nil when it is gone, else
    /// why it was kept; the caller records the outcome either way.
    func unlinkRecorded(
        _ name: [UInt8], in directory: FileDescriptor, entry: DeletionEntry, lease: WriteLease?, hidden: Int?
    ) -> SkipReason? {
        // The intent's fdatasync took a while: make sure the name is still what was checked.
        let now = try? directory.status(of: name)
        guard let now, FileIdentity(now) == entry.identity else {
            return now.map { .changedInode(expected: entry.identity, found: FileIdentity($0)) } ?? .gone(entry.path)
        }
        // Someone opened the file since the lease was granted: they are waiting for it.
        if let lease, !lease.isIntact, let hidden { return .openUnseen(hiddenProcesses: hidden) }
        let flags = entry.kind == .directory ? AT_REMOVEDIR : 0
        do {
            _ = try unsafe withCString(name) { cName throws(Errno) in
                try valueOrErrno { unsafe system_unlinkat(directory.rawValue, cName, flags) }.get()
            }
            return nil
        } catch .noSuchFileOrDirectory {
            return .gone(entry.path)
        } catch .directoryNotEmpty, .fileExists {
            return .notEmpty
        } catch {
            return .cannotRemove(error)
        }
    }
}

extension DeletionEntry {
    init(_ status: FileStatus, path: [UInt8]) {
        self.init(
            path: path, identity: FileIdentity(status), kind: status.kind, allocatedBytes: status.allocatedBytes,
            linkCount: status.linkCount)
    }
}
