import QuotaWatchEngine
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

    public func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome] {
        deleter.removeGroup(
            requests.map { GroupedRemoval(path: $0.path, identity: $0.identity) },
            journal: log.groupJournal(requests.map(\.audit)))
    }
}
