import Glibc
import QuotaWatchCore

extension Deleter {
    /// What became of one name.
    enum NameResult {
        case removed
        case kept(SkipReason)
        case notRecorded(DeletionJournalError)
    }

    /// Removes every entry below the open `directory` (at `path` under ROOT) that passes the
    /// checks, deepest first; entries that do not are noted in `removal.kept`. Stops only when
    /// an intent cannot be recorded.
    func emptyDirectory(
        _ directory: FileDescriptor, path: [UInt8], removal: inout Removal, links: inout LinkCounter,
        journal: any DeletionJournal
    ) -> NameResult {
        let names: [[UInt8]]
        do {
            names = try OpenWriters.entryNames(of: directory)
        } catch {
            removal.kept.append(KeptEntry(path: path, reason: .cannotRemove(error)))
            return .kept(.cannotRemove(error))
        }
        for name in names {
            let childPath = path + [UInt8(ascii: "/")] + name
            let result = removeEntry(
                name, in: directory, path: childPath, removal: &removal, links: &links, journal: journal)
            switch result {
            case .removed: continue
            case .kept(let reason): removal.kept.append(KeptEntry(path: childPath, reason: reason))
            case .notRecorded: return result
            }
        }
        return .removed
    }

    /// One entry inside a directory tree: checked like a path given by a cleaner, except
    /// that the inode expected is the one just stat'ed.
    private func removeEntry(
        _ name: [UInt8], in directory: FileDescriptor, path: [UInt8], removal: inout Removal,
        links: inout LinkCounter, journal: any DeletionJournal
    ) -> NameResult {
        if isProtected(path) { return .kept(.protected) }
        let status: FileStatus
        do {
            status = try directory.status(of: name)
        } catch .noSuchFileOrDirectory {
            return .removed  // someone else removed it: nothing left to do
        } catch {
            return .kept(.cannotRemove(error))
        }
        if status.device != rootDevice { return .kept(.otherDevice(path)) }
        if status.kind == .directory {
            let child: FileDescriptor
            switch openVerified(name, in: directory, path: path, status: status) {
            case .success(let opened): child = opened
            case .failure(let reason): return .kept(reason)
            }
            let keptBefore = removal.kept.count
            let emptied = emptyDirectory(child, path: path, removal: &removal, links: &links, journal: journal)
            child.close()
            if case .notRecorded = emptied { return emptied }
            if removal.kept.count > keptBefore { return .kept(.notEmpty) }
        } else if let reason = writerReason(status) {
            return .kept(reason)
        }
        return removeName(
            name, in: directory, path: path, status: status, removal: &removal, links: &links, journal: journal)
    }

    /// Records the intent, checks the name once more, removes it and records the outcome; in
    /// a dry run only notes what would go.
    func removeName(
        _ name: [UInt8], in directory: FileDescriptor, path: [UInt8], status: FileStatus, removal: inout Removal,
        links: inout LinkCounter, journal: any DeletionJournal
    ) -> NameResult {
        let entry = DeletionEntry(
            path: path, identity: FileIdentity(status), kind: status.kind, allocatedBytes: status.allocatedBytes,
            linkCount: status.linkCount)
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
        // The intent's fdatasync took a while: make sure the name is still what was checked.
        let now = try? directory.status(of: name)
        guard let now, FileIdentity(now) == entry.identity else {
            let reason: SkipReason =
                now.map { .changedInode(expected: entry.identity, found: FileIdentity($0)) } ?? .gone(path)
            journal.recordOutcome(entry, failure: reason)
            return .kept(reason)
        }
        let flags = status.kind == .directory ? AT_REMOVEDIR : 0
        let result: Result<CInt, Errno>
        do {
            result = .success(
                try unsafe withCString(name) { cName throws(Errno) in
                    try valueOrErrno { unsafe system_unlinkat(directory.rawValue, cName, flags) }.get()
                })
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success:
            journal.recordOutcome(entry, failure: nil)
            removal.entries.append(entry)
            removal.freedBytes = Saturating.sum(removal.freedBytes, links.freedByRemoving(entry))
            return .removed
        case .failure(let error):
            let reason: SkipReason =
                switch error {
                case .noSuchFileOrDirectory: .gone(path)
                case .directoryNotEmpty, .fileExists: .notEmpty
                default: .cannotRemove(error)
                }
            journal.recordOutcome(entry, failure: reason)
            return .kept(reason)
        }
    }
}
