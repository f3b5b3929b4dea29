import QuotaWatchCore

/// The disk level held now, and the `level` event when a reading changes it.
package struct LevelTracker: Sendable, Hashable {
    package private(set) var level: DiskLevel

    package init(level: DiskLevel = .normal) { self.level = level }

    /// Feeds a reading; returns the event's detail when the level changed.
    package mutating func update(_ reading: LevelPolicy.Reading, policy: LevelPolicy) -> PolicyEvent.Detail? {
        let next = policy.level(for: reading, current: level)
        guard next != level else { return nil }
        defer { level = next }
        return .level(
            from: level, to: next, free: reading.free, total: reading.total, rootAllocated: reading.rootAllocated)
    }
}
