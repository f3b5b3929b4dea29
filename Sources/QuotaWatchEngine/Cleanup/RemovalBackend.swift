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
