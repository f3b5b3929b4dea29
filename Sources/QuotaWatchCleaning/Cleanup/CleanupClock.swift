import Foundation
import QuotaWatchEngine
import QuotaWatchPolicy

/// The runner's time: wall time for the summary, a monotonic reading for durations, and the
/// sleep that bounds each cleaner. Tests drive a fake.
public protocol CleanupClock: Sendable {
    var wallTime: WallTime { get }
    var monotonic: Moment { get }
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clocks.
public struct SystemCleanupClock: CleanupClock {
    public init() {}

    public var wallTime: WallTime { WallTime.now() }
    public var monotonic: Moment { .now }

    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
