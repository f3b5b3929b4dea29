import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The Deleter, writing every intent and outcome to the audit log.
package struct AuditedDeleter: RemovalBackend {
    package let deleter: Deleter
    package let log: AuditLog

    package init(deleter: Deleter, log: AuditLog) {
        self.deleter = deleter
        self.log = log
    }

    package func remove(_ request: RemovalRequest) -> DeletionOutcome {
        deleter.remove(request.path, expecting: request.identity, journal: log.journal(request.audit))
    }

    package func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome] {
        deleter.removeGroup(
            requests.map { GroupedRemoval(path: $0.path, identity: $0.identity) },
            journal: log.groupJournal(requests.map(\.audit)))
    }
}
