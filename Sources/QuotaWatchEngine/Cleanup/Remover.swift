import QuotaWatchPolicy
import QuotaWatchSystem

/// What a cleaner holds to remove files: bound to its run, trigger and name, so every audit
/// record says who removed what and why.
public struct Remover: Sendable {
    let backend: any RemovalBackend
    let trigger: String
    let cleaner: String
    let run: String

    public init(backend: any RemovalBackend, trigger: String, cleaner: String, run: String) {
        self.backend = backend
        self.trigger = trigger
        self.cleaner = cleaner
        self.run = run
    }

    /// Removes `candidate` (a whole tree for a directory) if it is still the inode the engine saw.
    public func remove(_ candidate: CleanupCandidate, rule: String? = nil) -> DeletionOutcome {
        remove(
            path: candidate.path, identity: FileIdentity(device: candidate.device, inode: candidate.inode),
            rule: rule ?? candidate.rule)
    }

    public func remove(path: [UInt8], identity: FileIdentity, rule: String) -> DeletionOutcome {
        backend.remove(
            RemovalRequest(
                path: path, identity: identity,
                audit: AuditContext(rule: rule, trigger: trigger, cleaner: cleaner, run: run)))
    }
}
