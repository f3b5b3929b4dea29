import QuotaWatchCore

/// What every quota directory shares, fixed limit or budget share alike.
package struct QuotaThresholds: Sendable, Hashable {
    /// The share of the effective limit at which a directory enters the warning state.
    package var warningRatio: Double
    /// The band, as a share of the effective limit, a directory must fall below a line
    /// before it leaves the state above that line (see ``QuotaTracker``).
    package var hysteresis: Double
    package var size: SizeKind
    /// Report only: the cleaners of the next issue never touch this directory.
    package var protect: Bool

    package init(
        warningRatio: Double = 0.8, hysteresis: Double = 0.02, size: SizeKind = .allocated, protect: Bool = false
    ) {
        self.warningRatio = warningRatio
        self.hysteresis = hysteresis
        self.size = size
        self.protect = protect
    }
}

/// A fixed quota: every directory matching `glob` gets `limit`, scaled by the disk level.
package struct QuotaRule: Sendable, Hashable {
    package var glob: PathGlob
    package var limit: UInt64
    package var thresholds: QuotaThresholds

    package init(glob: PathGlob, limit: UInt64, thresholds: QuotaThresholds = QuotaThresholds()) {
        self.glob = glob
        self.limit = limit
        self.thresholds = thresholds
    }

    package func effectiveLimit(scale: Double) -> UInt64 { scaled(limit, by: scale) }
}

/// `bytes × scale`, rounded down, saturating at the ends of UInt64.
func scaled(_ bytes: UInt64, by scale: Double) -> UInt64 {
    let product = Double(bytes) * max(scale, 0)
    if product >= Double(UInt64.max) { return UInt64.max }
    return UInt64(product.rounded(.down))
}
