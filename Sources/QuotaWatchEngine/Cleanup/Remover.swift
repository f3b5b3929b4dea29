import QuotaWatchPolicy
import QuotaWatchSystem

/// One removal as a cleaner asks for it, with what the audit log records.
public struct RemovalRequest: Sendable, Hashable {
    public var path: [UInt8]
    public var identity: FileIdentity
    public var audit: AuditContext

    public init(path: [UInt8], identity: FileIdentity, audit: AuditContext) {
        self.path = path
        self.identity = identity
        self.audit = audit
    }
}

/// What actually removes: the ``Deleter`` with the audit log in production, a recorder in tests.
public protocol RemovalBackend: Sendable {
    func remove(_ request: RemovalRequest) -> DeletionOutcome
}

/// The Deleter, writing every intent and outcome to the audit log.
public struct AuditedDeleter: RemovalBackend {
    public let deleter: Deleter
    public let log: AuditLog

    public init(deleter: Deleter, log: AuditLog) {
        self.deleter = deleter
        self.log = log
    }

    public func remove(_ request: RemovalRequest) -> DeletionOutcome {
        deleter.remove(request.path, expecting: request.identity, journal: log.journal(request.audit))
    }
}

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
