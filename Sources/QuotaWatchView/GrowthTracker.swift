import QuotaWatchPolicy

/// Growth rates from successive frames: bytes per second of each child of the current
/// directory, and events per second. The view computes them itself (no engine state), with the
/// estimator and default window of the breach forecast (``GrowthRate``), so the GROWTH column
/// and `status --quotas` agree on a quota directory.
package struct GrowthTracker: Sendable {
    /// Event readings older than this are forgotten; the event rate spans what is left.
    package var window: Double

    private var directory: [UInt8] = []
    private var rates: [[UInt8]: GrowthRate] = [:]
    private var latest = Moment.seconds(0)
    private var eventSamples: [(seconds: Double, events: UInt64)] = []

    package init(window: Double = 5) { self.window = window }

    /// Takes a frame's readings. A new directory starts the children's history afresh.
    package mutating func record(_ frame: WatchFrame) {
        if frame.directory != directory {
            directory = frame.directory
            rates.removeAll()
        }
        let horizon = frame.seconds - window
        latest = .seconds(frame.seconds)
        var seen = Set<[UInt8]>()
        for entry in frame.entries {
            seen.insert(entry.name)
            rates[entry.name, default: GrowthRate(window: ForecastSettings().window)].record(
                entry.allocated, at: latest)
        }
        // Children no longer in the frame (deleted, or out of the largest shown) are dropped.
        for name in rates.keys where !seen.contains(name) { rates.removeValue(forKey: name) }
        eventSamples.append((frame.seconds, frame.events))
        while let first = eventSamples.first, first.seconds < horizon, eventSamples.count > 2 {
            eventSamples.removeFirst()
        }
    }

    /// Bytes per second the child named `name` grew by (negative when it shrank) as of the last
    /// frame; nil until it has been in two frames a moment apart.
    package func bytesPerSecond(_ name: [UInt8]) -> Double? {
        guard let rate = rates[name], let first = rate.readings.first, (latest - first.moment) > .milliseconds(50)
        else { return nil }
        return rate.bytesPerSecond(at: latest)
    }

    /// inotify events per second over the window; nil until two readings exist.
    package var eventsPerSecond: Double? {
        guard let first = eventSamples.first, let last = eventSamples.last, last.seconds - first.seconds > 0.05,
            last.events >= first.events
        else { return nil }
        return Double(last.events - first.events) / (last.seconds - first.seconds)
    }
}
