import Foundation
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The runner's time: wall time for the summary, a monotonic reading for durations, and the
/// blocking sleep that bounds each cleaner. Tests drive a fake.
package protocol CleanupClock: Sendable {
    var wallTime: WallTime { get }
    var monotonic: Moment { get }
    /// Blocks the calling thread for `duration`, or until `ended` holds for `state` (looked at
    /// each time `state` wakes its waiters): true when `ended` cut the sleep short.
    func sleep<State>(
        for duration: Duration, on state: BlockingState<State>, until ended: (inout State) -> Bool
    )
        -> Bool
}

/// The real clocks.
package struct SystemCleanupClock: CleanupClock {
    package init() {}

    package var wallTime: WallTime { WallTime.now() }
    package var monotonic: Moment { .now }

    package func sleep<State>(
        for duration: Duration, on state: BlockingState<State>, until ended: (inout State) -> Bool
    ) -> Bool {
        state.waitUntil(deadline: .now + duration, ended)
    }
}
