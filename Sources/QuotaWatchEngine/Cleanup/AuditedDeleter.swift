import QuotaWatchPolicy
import QuotaWatchSystem

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
