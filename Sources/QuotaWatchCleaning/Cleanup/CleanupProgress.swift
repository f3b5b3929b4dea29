import QuotaWatchEngine
import QuotaWatchPolicy
import Synchronization

/// How far a cleaner has got: the count of removals answered and when the last was, so that
/// the runner's timeout bounds a stall, not a large job.
public final class CleanupProgress: Sendable {
    public struct Reading: Sendable, Equatable {
        public var answered: Int
        /// The clock's monotonic reading at the last answer (at the start, before any).
        public var at: Moment
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
