import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// How far a cleaner has got: the count of removals answered and when the last was, so that
/// the runner's timeout bounds a stall, not a large job; and the names removed and bytes
/// freed so far, which the runner reports while the cleaner goes on (`cleanup_progress`).
package final class CleanupProgress: Sendable {
    package struct Reading: Sendable, Equatable {
        package var answered: Int
        /// The clock's monotonic reading at the last answer (at the start, before any).
        package var at: Moment
        /// Removals that removed (in a dry run, would remove) their name, a tree counting once.
        package var removed: Int = 0
        /// Allocated bytes the file system got back so far.
        package var freedBytes: UInt64 = 0
    }

    private let clock: any CleanupClock
    private let state: Mutex<Reading>
    /// The paths removed so far: the run settles the next cleaner's context against them even
    /// when this one timed out and its result was dropped.
    private let paths = Mutex<Set<[UInt8]>>([])

    package init(clock: any CleanupClock) {
        self.clock = clock
        state = Mutex(Reading(answered: 0, at: clock.monotonic))
    }

    package var reading: Reading { state.withLock { $0 } }

    /// Every path a removal removed (in a dry run, would remove) so far.
    var removedPaths: Set<[UInt8]> { paths.withLock { $0 } }

    func note(answered count: Int) { note(answered: count, outcomes: []) }

    /// `count` removals answered, with what they did (empty when the caller has no outcomes)
    /// and, when the caller knows them, the path of each outcome.
    func note(answered count: Int, outcomes: some Collection<DeletionOutcome>, paths named: [[UInt8]] = []) {
        var removed = 0
        var freed: UInt64 = 0
        var removedPaths: [[UInt8]] = []
        for (index, outcome) in outcomes.enumerated() {
            guard case .removed(let removal) = outcome else { continue }
            removed += 1
            freed = Saturating.sum(freed, removal.freedBytes)
            if index < named.count { removedPaths.append(named[index]) }
        }
        let now = clock.monotonic
        state.withLock { state in
            state.answered += count
            state.at = now
            state.removed += removed
            state.freedBytes = Saturating.sum(state.freedBytes, freed)
        }
        if !removedPaths.isEmpty { paths.withLock { $0.formUnion(removedPaths) } }
    }
}
