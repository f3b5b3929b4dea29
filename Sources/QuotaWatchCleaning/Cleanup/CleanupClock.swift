import Foundation
import QuotaWatchEngine
import QuotaWatchPolicy

/// The runner's time: wall time for the summary, a monotonic reading for durations, and the
/// sleep that bounds each cleaner. Tests drive a fake.
package protocol CleanupClock: Sendable {
    var wallTime: WallTime { get }
    var monotonic: Moment { get }
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clocks.
package struct SystemCleanupClock: CleanupClock {
    package init() {}

    package var wallTime: WallTime { WallTime.now() }
    package var monotonic: Moment { .now }

    package func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
