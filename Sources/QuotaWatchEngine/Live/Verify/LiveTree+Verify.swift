import QuotaWatchCore

/// The verification sweep's stats (``VerificationSweep``): each name compared with its record,
/// and a difference corrected as the flush corrects a name an event named.
extension LiveTree {
    /// Whether a slice may run now: nothing waits to be stat'ed and no move is half seen, so
    /// a difference is not one that a queued change is about to settle, and no record is parked.
    package var isSettledForVerification: Bool {
        !hasPendingWork && inTransit.isEmpty && displaced.isEmpty
    }

    /// Looks at the next ``VerificationSweep/sliceNames`` names of the pass (starting
    /// one when none is going on) and corrects each difference. Returns those old enough that
    /// their event would have come by now: what no event reported. `wallNow` is nanoseconds
    /// since the epoch, what inode change times are compared with.
    package mutating func verifySlice(wallNow: Int64) -> [VerificationSweep.Correction] {
        if verification.current == nil {
            verification.begin(tree.subtree(of: tree.root), now: latestNow, wallNow: wallNow)
        }
        let quietBefore = wallNow - Int64(clamping: verification.settings.quietFor.nanoseconds)
        var corrections: [VerificationSweep.Correction] = []
        for _ in 0..<verification.sliceNames {
            guard let target = verification.next(wallNow: wallNow) else {
                verification.finish(wallNow: wallNow)
                break
            }
            switch target {
            case .wait:
                break
            case .directory(let directory):
                guard tree.contains(directory), !unreadable.contains(directory), tree.name(of: directory).first != 0
                else { continue }
                verification.checked()
                verification.queueFiles(tree.files(in: directory))
                if let correction = verifyOwnInode(of: directory, quietBefore: quietBefore) {
                    corrections.append(correction)
                }
            case .file(let file, let directory, let again):
                guard tree.contains(file), tree.directory(containing: file) == directory, tree.contains(directory)
                else { continue }
                if !again { verification.checked() }
                switch verify(file, in: directory, quietBefore: quietBefore, correctingRecent: again) {
                case .same: break
                case .recent: verification.checkLater(file, in: directory, wallNow: wallNow)
                case .corrected(let correction?): corrections.append(correction)
                case .corrected(nil): break
                }
            }
            if target == .wait { break }
        }
        checkConsistency(after: "a verification slice")
        for correction in corrections { verification.corrected(correction.reason) }
        return corrections
    }

    private mutating func verifyOwnInode(
        of directory: DirectoryID, quietBefore: Int64
    )
        -> VerificationSweep.Correction?
    {
        guard case .found(let status) = fileSystem.status(of: directory, tree: tree), status.kind == .directory,
            status.inode == tree.inode(of: directory)
        else { return nil }
        let before = tree.ownUsage(of: directory)
        guard status.usage != before else { return nil }
        tree.updateDirectory(directory, status: status)
        guard status.changedNanoseconds < quietBefore else { return nil }
        return VerificationSweep.Correction(
            path: tree.relativePath(of: directory), before: before, after: status.usage, reason: .directory)
    }

    private enum FileCheck {
        case same
        /// Different, but changed too recently to tell from a write whose event is on its way.
        case recent
        /// Corrected; counted when it is older than that.
        case corrected(VerificationSweep.Correction?)
    }

    /// One file against its record. A recent difference is left alone the first time
    /// (`correctingRecent` false): its event, if it has one, settles it, and the second look
    /// finds nothing; one that no event settles is corrected then, and counted once quiet.
    private mutating func verify(
        _ file: FileID, in directory: DirectoryID, quietBefore: Int64, correctingRecent: Bool
    )
        -> FileCheck
    {
        let name = Array(tree.name(of: file))
        // Parked names are not real: their records wait for the rest of a move.
        guard name.first != 0 else { return .same }
        let before = tree.usage(of: file)
        let reason: VerificationSweep.Reason
        let after: Usage?
        let changed: Int64
        switch fileSystem.status(of: name, in: directory, tree: tree) {
        case .found(let status) where status.kind != .directory && status.inode == tree.inode(of: file):
            let recorded = status.recordedUsage
            guard recorded != before else { return .same }
            reason = recorded.apparent != before.apparent ? .size : .allocation
            (after, changed) = (recorded, status.changedNanoseconds)
        case .found(let status):
            reason = .replaced
            (after, changed) = (status.kind == .directory ? nil : status.recordedUsage, status.changedNanoseconds)
        case .missing:
            // The directory's change time says when a name last went from it.
            guard case .found(let parent) = fileSystem.status(of: directory, tree: tree) else { return .same }
            (reason, after, changed) = (.replaced, nil, parent.changedNanoseconds)
        case .permissionDenied, .directoryUnavailable, .outOfDescriptors:
            // Their own paths (unreadable marking, a rename on its way) deal with these.
            return .same
        }
        let quiet = changed < quietBefore
        if !quiet && !correctingRecent { return .recent }
        let pending = PendingName(directory: directory, name: name)
        if refresh(pending) == .deferred { deferredNames[pending, default: 0] += 1 }
        // Still changing at the second look: corrected, but a write racing this stat may
        // have its event on the way, so it is not counted as one no event reported.
        guard quiet else { return .corrected(nil) }
        return .corrected(
            VerificationSweep.Correction(
                path: tree.relativePath(of: directory).appendingComponent(name), before: before, after: after,
                reason: reason))
    }
}

extension [UInt8] {
    /// `self/name`, or `name` when `self` is the root's empty path.
    fileprivate func appendingComponent(_ name: [UInt8]) -> [UInt8] {
        isEmpty ? name : self + [UInt8(ascii: "/")] + name
    }
}
