import QuotaWatchCore

/// How the disk level is computed, and what each level does to quotas and to re-reading.
///
/// Two sources rate the disk and the worse one wins:
/// - **free space** of ROOT's filesystem: a level holds while free space is below *any* of its
///   thresholds, so of "10 %, 5 GB" the larger one counts (the literal "or": under 10 % or
///   under 5 GB). Give a single value to use just that one;
/// - **ROOT's own allocated total**: a level holds while it is at or above the threshold.
///
/// Hysteresis: a level once entered is left only when its condition fails by a band of
/// `hysteresis` × the threshold (free space must climb that far above it, ROOT's total fall
/// that far below it), so a disk hovering at a line does not flap.
package struct LevelPolicy: Sendable, Hashable {
    package var freeWarning: [SpaceThreshold]
    package var freeCritical: [SpaceThreshold]
    package var rootWarning: UInt64?
    package var rootCritical: UInt64?
    package var hysteresis: Double
    /// What every quota is multiplied by at each level.
    package var scale: PerLevel<Double>
    /// How often free space is read at each level when nothing under ROOT changes.
    package var checkPeriod: PerLevel<Duration>
    /// The most ROOT may change between reads before free space is read again at once.
    package var maximumStep: UInt64

    package init(
        freeWarning: [SpaceThreshold] = [.share(0.10), .bytes(5_000_000_000)],
        freeCritical: [SpaceThreshold] = [.share(0.05), .bytes(1_000_000_000)],
        rootWarning: UInt64? = nil, rootCritical: UInt64? = nil, hysteresis: Double = 0.02,
        scale: PerLevel<Double> = PerLevel(normal: 1.0, warning: 0.7, critical: 0.4),
        checkPeriod: PerLevel<Duration> = PerLevel(normal: .seconds(60), warning: .seconds(15), critical: .seconds(5)),
        maximumStep: UInt64 = 64_000_000
    ) {
        self.freeWarning = freeWarning
        self.freeCritical = freeCritical
        self.rootWarning = rootWarning
        self.rootCritical = rootCritical
        self.hysteresis = hysteresis
        self.scale = scale
        self.checkPeriod = checkPeriod
        self.maximumStep = maximumStep
    }

    /// One reading of the disk.
    package struct Reading: Sendable, Hashable {
        /// `f_bavail × f_frsize`: what an unprivileged writer can still use.
        package var free: UInt64
        /// `f_blocks × f_frsize`.
        package var total: UInt64
        /// ROOT's live allocated total.
        package var rootAllocated: UInt64

        package init(free: UInt64, total: UInt64, rootAllocated: UInt64) {
            self.free = free
            self.total = total
            self.rootAllocated = rootAllocated
        }
    }

    /// The level for `reading`, given the level held until now.
    package func level(for reading: Reading, current: DiskLevel) -> DiskLevel {
        for level in [DiskLevel.critical, .warning] where holds(level, reading, current: current) {
            return level
        }
        return .normal
    }

    private func holds(_ level: DiskLevel, _ reading: Reading, current: DiskLevel) -> Bool {
        let staying = current >= level
        let band = staying ? hysteresis : 0
        let free = level == .critical ? freeCritical : freeWarning
        for threshold in free {
            let line = Double(threshold.bytes(ofTotal: reading.total))
            if Double(reading.free) < line * (1 + band) { return true }
        }
        if let root = level == .critical ? rootCritical : rootWarning {
            if Double(reading.rootAllocated) >= Double(root) * (1 - band) { return true }
        }
        return false
    }

    /// The highest free-space threshold of `level` for a filesystem of `total` bytes.
    package func freeLine(_ level: DiskLevel, total: UInt64) -> UInt64? {
        let thresholds = level == .critical ? freeCritical : level == .warning ? freeWarning : []
        return thresholds.map { $0.bytes(ofTotal: total) }.max()
    }

    /// How much ROOT may change (the sum of the sizes of its changes, in either direction)
    /// before free space is read again at once: half the distance from the last reading to
    /// the nearest free-space line, at most ``maximumStep``, and at least 1 MB so a disk
    /// sitting on a line is not read after every write.
    package func rereadStep(after reading: Reading) -> UInt64 {
        var step = maximumStep
        for level in [DiskLevel.warning, .critical] {
            guard let line = freeLine(level, total: reading.total) else { continue }
            let distance = reading.free > line ? reading.free - line : line - reading.free
            step = min(step, distance / 2)
        }
        return max(step, min(1_000_000, maximumStep))
    }
}
