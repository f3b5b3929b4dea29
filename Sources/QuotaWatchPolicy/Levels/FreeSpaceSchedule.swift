import QuotaWatchCore

/// When to read free space again: after the level's period, or at once when ROOT has changed
/// by more than a step since the last reading. Pure bookkeeping; the engine keeps one.
package struct FreeSpaceSchedule: Sendable, Hashable {
    package private(set) var lastReading: Moment
    package private(set) var changedSinceReading: UInt64 = 0
    package private(set) var step: UInt64

    package init(readAt moment: Moment, reading: LevelPolicy.Reading, policy: LevelPolicy) {
        lastReading = moment
        step = policy.rereadStep(after: reading)
    }

    /// When the next timed reading is due at `level`.
    package func deadline(level: DiskLevel, policy: LevelPolicy) -> Moment {
        lastReading + policy.checkPeriod[level]
    }

    /// Records a change of `bytes` (either sign) under ROOT; true when free space should be
    /// read now.
    package mutating func recordChange(_ bytes: Int64) -> Bool {
        changedSinceReading &+= bytes.magnitude
        return changedSinceReading >= step
    }

    /// Records a reading just taken.
    package mutating func didRead(at moment: Moment, reading: LevelPolicy.Reading, policy: LevelPolicy) {
        lastReading = moment
        changedSinceReading = 0
        step = policy.rereadStep(after: reading)
    }
}
