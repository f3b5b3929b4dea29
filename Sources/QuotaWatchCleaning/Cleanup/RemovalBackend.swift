import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// One removal as a cleaner asks for it, with what the audit log records.
package struct RemovalRequest: Sendable, Hashable {
    package var path: [UInt8]
    package var identity: FileIdentity
    package var audit: AuditContext

    package init(path: [UInt8], identity: FileIdentity, audit: AuditContext) {
        self.path = path
        self.identity = identity
        self.audit = audit
    }
}

/// What actually removes: the ``Deleter`` with the audit log in production, a recorder in tests.
package protocol RemovalBackend: Sendable {
    func remove(_ request: RemovalRequest) -> DeletionOutcome
    /// Removes many at once, one outcome per request in order (the Deleter's group: one sync
    /// of the intents, one look at `/proc`). After a `notRecorded`, every later request is
    /// `notRecorded` too.
    func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome]
}

extension RemovalBackend {
    /// One request after another.
    package func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome] {
        var outcomes: [DeletionOutcome] = []
        for request in requests {
            if case .notRecorded = outcomes.last {
                outcomes.append(outcomes[outcomes.count - 1])
                continue
            }
            outcomes.append(remove(request))
        }
        return outcomes
    }
}
