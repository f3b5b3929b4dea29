import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// What a cleaner holds to remove files: bound to its run, trigger and name, so every audit
/// record says who removed what and why.
package struct Remover: Sendable {
    let backend: any RemovalBackend
    let trigger: String
    let cleaner: String
    let run: String
    /// Told of every removal answered: the runner's timeout counts from the last one.
    let progress: CleanupProgress?

    package init(
        backend: any RemovalBackend, trigger: String, cleaner: String, run: String, progress: CleanupProgress? = nil
    ) {
        self.backend = backend
        self.trigger = trigger
        self.cleaner = cleaner
        self.run = run
        self.progress = progress
    }

    /// Removes `candidate` (a whole tree for a directory) if it is still the inode the engine
    /// saw, and, for a file, not changed since the engine saw it: the leftover and expiry
    /// cleaners chose it for being idle, which a write since would have ended.
    package func remove(_ candidate: CleanupCandidate, rule: String? = nil) -> DeletionOutcome {
        remove(
            path: candidate.path,
            identity: FileIdentity(
                device: candidate.device, inode: candidate.inode, unchangedSince: candidate.changedNanoseconds),
            rule: rule ?? candidate.rule)
    }

    package func remove(path: [UInt8], identity: FileIdentity, rule: String) -> DeletionOutcome {
        let outcome = backend.remove(request(path: path, identity: identity, rule: rule))
        progress?.note(answered: 1, outcomes: CollectionOfOne(outcome), paths: [path])
        return outcome
    }

    /// Removes many names at once (see ``RemovalBackend/removeGroup(_:)``), in groups of
    /// ``Deleter/groupSize``: one outcome per name, in order.
    package func removeGroup(_ names: [(path: [UInt8], identity: FileIdentity, rule: String)]) -> [DeletionOutcome] {
        var outcomes: [DeletionOutcome] = []
        outcomes.reserveCapacity(names.count)
        var start = 0
        while start < names.count {
            let end = min(start + Deleter.groupSize, names.count)
            let group = backend.removeGroup(
                names[start..<end].map { request(path: $0.path, identity: $0.identity, rule: $0.rule) })
            progress?.note(answered: end - start, outcomes: group, paths: names[start..<end].map(\.path))
            outcomes += group
            start = end
            if case .notRecorded = outcomes.last {
                outcomes += Array(repeating: outcomes[outcomes.count - 1], count: names.count - end)
                break
            }
        }
        return outcomes
    }

    private func request(path: [UInt8], identity: FileIdentity, rule: String) -> RemovalRequest {
        RemovalRequest(
            path: path, identity: identity,
            audit: AuditContext(rule: rule, trigger: trigger, cleaner: cleaner, run: run))
    }
}
