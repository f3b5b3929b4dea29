import QuotaWatchCore

/// Where a group of removals records itself: every intent of a group is on disk, by one sync,
/// before any of the group's names is removed.
package protocol GroupDeletionJournal {
    /// Records that each entry (with the index of its request) is about to be removed. All of
    /// them must be on disk when this returns; throwing stops the group before any name is
    /// touched.
    func recordIntents(_ entries: [(request: Int, entry: DeletionEntry)]) throws(DeletionJournalError)
    /// Records what became of a recorded intent: nil for removed, else why not.
    func recordOutcome(request: Int, entry: DeletionEntry, failure: SkipReason?)
    /// The journal for request `request` removed on its own (a directory's tree).
    func single(request: Int) -> any DeletionJournal
}

/// One name a group removes, with the inode it must still lead to.
package struct GroupedRemoval: Sendable, Hashable {
    package var path: [UInt8]
    package var identity: FileIdentity

    package init(path: [UInt8], identity: FileIdentity) {
        self.path = path
        self.identity = identity
    }
}

extension Deleter {
    /// At most this many names share one sync of their intents and one look at `/proc`.
    package static let groupSize = 1024
    /// At most this many parent directories are held open by one group.
    static let groupParents = 64

    /// Removes each of `removals` as ``remove(_:expecting:journal:)`` would, one outcome per
    /// removal in order, but a group at a time: every check of a name is made first (one
    /// `/proc` pass for the group's files), then the intents of all that passed are recorded
    /// with one sync, then each name is checked once more and unlinked. A crash at any point
    /// leaves an intent for every name gone. Directories are removed one by one, after the
    /// group's files. When an intent cannot be recorded, that removal and every later one is
    /// `notRecorded`.
    ///
    /// A group holds its parent directories open from the first check to the last unlink,
    /// longer than one removal does; a directory moved meanwhile can only have been moved by a
    /// process allowed to write it (a move to another parent rewrites its `..`), which could
    /// have removed its names anyway, and each name is still checked once more just before it
    /// is unlinked.
    package func removeGroup(_ removals: [GroupedRemoval], journal: any GroupDeletionJournal) -> [DeletionOutcome] {
        var outcomes: [DeletionOutcome?] = Array(repeating: nil, count: removals.count)
        var start = 0
        while start < removals.count {
            var group = Group(deleter: self)
            var next = start
            while next < removals.count, next - start < Self.groupSize,
                group.admit(next, removals[next], outcomes: &outcomes)
            {
                next += 1
            }
            let stop = group.finish(journal: journal, outcomes: &outcomes)
            if let stop {
                for index in outcomes.indices where outcomes[index] == nil { outcomes[index] = .notRecorded(stop) }
                break
            }
            start = next
        }
        // Every removal was answered above: admitted into a group, or stopped by the journal.
        return outcomes.map { $0 ?? .skipped(.root) }
    }

    /// The names of one group between their checks and their removal.
    private struct Group {
        struct Staged {
            let request: Int
            let parent: FileDescriptor
            let name: [UInt8]
            let status: FileStatus
            let entry: DeletionEntry
            var hidden: Int?
        }

        let deleter: Deleter
        var parents: [[UInt8]: FileDescriptor] = [:]
        var staged: [Staged] = []
        /// Directories, removed on their own after the files.
        var trees: [(request: Int, removal: GroupedRemoval)] = []

        init(deleter: Deleter) { self.deleter = deleter }

        /// Checks one removal, up to its writers; false when the group holds as many parent
        /// directories as it may (the removal starts the next group).
        mutating func admit(_ index: Int, _ removal: GroupedRemoval, outcomes: inout [DeletionOutcome?]) -> Bool {
            let path = removal.path
            if deleter.isProtected(path) {
                outcomes[index] = .skipped(.protected)
                return true
            }
            let components: [[UInt8]]
            switch Deleter.components(of: path) {
            case .success(let parsed): components = parsed
            case .failure(let reason):
                outcomes[index] = .skipped(reason)
                return true
            }
            let parentPath = Array(components.dropLast().joined(separator: [UInt8(ascii: "/")]))
            let parent: FileDescriptor
            if let held = parents[parentPath] {
                parent = held
            } else {
                guard parents.count < Deleter.groupParents else { return false }
                switch deleter.openDirectories(components.dropLast()) {
                case .success(let opened): parent = opened
                case .failure(let stop):
                    outcomes[index] = stop.outcome
                    return true
                }
                parents[parentPath] = parent
            }
            let name = components[components.count - 1]
            let status: FileStatus
            do {
                status = try parent.status(of: name)
            } catch .noSuchFileOrDirectory {
                outcomes[index] = .skipped(.gone(path))
                return true
            } catch {
                outcomes[index] = .failed(error)
                return true
            }
            if let reason = deleter.placeReason(name, in: parent, path: path, status: status) {
                outcomes[index] = .skipped(reason)
            } else if FileIdentity(status) != removal.identity {
                outcomes[index] = .skipped(.changedInode(expected: removal.identity, found: FileIdentity(status)))
            } else if let reason = removal.identity.changeSinceChosen(status) {
                outcomes[index] = .skipped(reason)
            } else if status.kind == .directory {
                trees.append((index, removal))
            } else {
                staged.append(
                    Staged(
                        request: index, parent: parent, name: name, status: status,
                        entry: DeletionEntry(status, path: path)))
            }
            return true
        }

        /// Asks `/proc` once for the group's files, records the intents of those it clears,
        /// removes them, then the directories; closes what the group opened. Returns the
        /// journal's error when an intent could not be recorded.
        mutating func finish(
            journal: any GroupDeletionJournal, outcomes: inout [DeletionOutcome?]
        ) -> DeletionJournalError? {
            defer { for parent in parents.values where parent != deleter.root { parent.close() } }
            let regular = Set(staged.filter { $0.status.kind == .regular }.map(\.entry.identity))
            let findings =
                regular.isEmpty
                ? .success([:])
                : Result(catching: { () throws(Errno) in
                    try deleter.groupWriters(regular)
                })
            var cleared: [Staged] = []
            for var item in staged {
                let verdict: WriterVerdict =
                    item.status.kind != .regular
                    ? .clear
                    : Deleter.verdict(findings.map { $0[item.entry.identity] ?? .noWriter })
                switch verdict {
                case .clear: cleared.append(item)
                case .leaseNeeded(let hidden):
                    item.hidden = hidden
                    cleared.append(item)
                case .refused(let reason): outcomes[item.request] = .skipped(reason)
                }
            }
            if !deleter.dryRun && !cleared.isEmpty {
                do {
                    try journal.recordIntents(cleared.map { ($0.request, $0.entry) })
                } catch {
                    for item in cleared { outcomes[item.request] = .notRecorded(error) }
                    return error
                }
            }
            for item in cleared { outcomes[item.request] = remove(item, journal: journal) }
            for tree in trees {
                let outcome = deleter.remove(
                    tree.removal.path, expecting: tree.removal.identity, journal: journal.single(request: tree.request))
                outcomes[tree.request] = outcome
                if case .notRecorded(let error) = outcome { return error }
            }
            return nil
        }

        /// One file whose intent is recorded (none in a dry run): under a lease where `/proc`
        /// could not clear it, checked once more, unlinked.
        private func remove(_ item: Staged, journal: any GroupDeletionJournal) -> DeletionOutcome {
            var lease: WriteLease?
            if let hidden = item.hidden {
                switch deleter.takeLease(
                    item.name, in: item.parent, path: item.entry.path, status: item.status, hidden: hidden)
                {
                case .success(let taken): lease = taken
                case .failure(let reason):
                    if !deleter.dryRun {
                        journal.recordOutcome(request: item.request, entry: item.entry, failure: reason)
                    }
                    return .skipped(reason)
                }
            }
            defer { lease?.release() }
            var removal = Removal(dryRun: deleter.dryRun)
            var links = LinkCounter()
            if !deleter.dryRun {
                let kept = deleter.unlinkRecorded(
                    item.name, in: item.parent, entry: item.entry, lease: lease, hidden: item.hidden)
                journal.recordOutcome(request: item.request, entry: item.entry, failure: kept)
                if let kept {
                    if case .cannotRemove(let error) = kept { return .failed(error) }
                    return .skipped(kept)
                }
            }
            removal.entries.append(item.entry)
            removal.freedBytes = links.freedByRemoving(item.entry)
            return .removed(removal)
        }
    }
}
