/// Growth rates from successive frames: bytes per second of each child of the current
/// directory over the last few seconds, and events per second. The view computes them itself
/// (no engine state): a rate needs only two readings of the same number.
public struct GrowthTracker: Sendable {
    /// Readings older than this are forgotten; the rate spans what is left.
    public var window: Double

    private var directory: [UInt8] = []
    private var samples: [[UInt8]: [(seconds: Double, bytes: UInt64)]] = [:]
    private var eventSamples: [(seconds: Double, events: UInt64)] = []

    public init(window: Double = 5) { self.window = window }

    /// Takes a frame's readings. A new directory starts the children's history afresh.
    public mutating func record(_ frame: WatchFrame) {
        if frame.directory != directory {
            directory = frame.directory
            samples.removeAll()
        }
        let horizon = frame.seconds - window
        var seen = Set<[UInt8]>()
        for entry in frame.entries {
            seen.insert(entry.name)
            var history = samples[entry.name] ?? []
            history.append((frame.seconds, entry.allocated))
            while let first = history.first, first.seconds < horizon, history.count > 2 { history.removeFirst() }
            samples[entry.name] = history
        }
        // Children no longer in the frame (deleted, or out of the largest shown) are dropped.
        for name in samples.keys where !seen.contains(name) { samples.removeValue(forKey: name) }
        eventSamples.append((frame.seconds, frame.events))
        while let first = eventSamples.first, first.seconds < horizon, eventSamples.count > 2 {
            eventSamples.removeFirst()
        }
    }

    /// Bytes per second the child named `name` grew by (negative when it shrank); nil until
    /// two readings a moment apart exist.
    public func bytesPerSecond(_ name: [UInt8]) -> Double? {
        guard let history = samples[name], let first = history.first, let last = history.last,
            last.seconds - first.seconds > 0.05
        else { return nil }
        return (Double(last.bytes) - Double(first.bytes)) / (last.seconds - first.seconds)
    }

    /// inotify events per second over the window; nil until two readings exist.
    public var eventsPerSecond: Double? {
        guard let first = eventSamples.first, let last = eventSamples.last, last.seconds - first.seconds > 0.05,
            last.events >= first.events
        else { return nil }
        return Double(last.events - first.events) / (last.seconds - first.seconds)
    }
}
