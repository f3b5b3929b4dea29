import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

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
    /// Removes many at once, one outcome per request in order (the Deleter's group: one sync
    /// of the intents, one look at `/proc`). After a `notRecorded`, every later request is
    /// `notRecorded` too.
    func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome]
}

extension RemovalBackend {
    /// One request after another.
    public func removeGroup(_ requests: [RemovalRequest]) -> [DeletionOutcome] {
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

/// What a cleaner holds to remove files: bound to its run, trigger and name, so every audit
/// record says who removed what and why.
public struct Remover: Sendable {
    let backend: any RemovalBackend
    let trigger: String
    let cleaner: String
    let run: String
    /// Told of every removal answered: the runner's timeout counts from the last one.
    let progress: CleanupProgress?

    public init(
        backend: any RemovalBackend, trigger: String, cleaner: String, run: String, progress: CleanupProgress? = nil
    ) {
        self.backend = backend
        self.trigger = trigger
        self.cleaner = cleaner
        self.run = run
        self.progress = progress
    }

    /// Removes `candidate` (a whole tree for a directory) if it is still the inode the engine saw.
    public func remove(_ candidate: CleanupCandidate, rule: String? = nil) -> DeletionOutcome {
        remove(
            path: candidate.path, identity: FileIdentity(device: candidate.device, inode: candidate.inode),
            rule: rule ?? candidate.rule)
    }

    public func remove(path: [UInt8], identity: FileIdentity, rule: String) -> DeletionOutcome {
        defer { progress?.note(answered: 1) }
        return backend.remove(request(path: path, identity: identity, rule: rule))
    }

    /// Removes many names at once (see ``RemovalBackend/removeGroup(_:)``), in groups of
    /// ``Deleter/groupSize``: one outcome per name, in order.
    public func removeGroup(_ names: [(path: [UInt8], identity: FileIdentity, rule: String)]) -> [DeletionOutcome] {
        var outcomes: [DeletionOutcome] = []
        outcomes.reserveCapacity(names.count)
        var start = 0
        while start < names.count {
            let end = min(start + Deleter.groupSize, names.count)
            outcomes += backend.removeGroup(
                names[start..<end].map { request(path: $0.path, identity: $0.identity, rule: $0.rule) })
            progress?.note(answered: end - start)
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

/// How far a cleaner has got: the count of removals answered and when the last was, so that
/// the runner's timeout bounds a stall, not a large job.
public final class CleanupProgress: Sendable {
    public struct Reading: Sendable, Equatable {
        public var answered: Int
        /// The clock's monotonic reading at the last answer (at the start, before any).
        public var at: Duration
    }

    private let clock: any CleanupClock
    private let state: Mutex<Reading>

    public init(clock: any CleanupClock) {
        self.clock = clock
        state = Mutex(Reading(answered: 0, at: clock.monotonic))
    }

    public var reading: Reading { state.withLock { $0 } }

    func note(answered count: Int) {
        let now = clock.monotonic
        state.withLock { state in
            state.answered += count
            state.at = now
        }
    }
}
