import QuotaWatchCore

/// The hysteresis state machine of one quota directory. It reports a transition exactly
/// once, at the change that crosses a line, and never while a directory hovers at one.
///
/// With L the effective limit, W = warning ratio × L and a band B = hysteresis × L:
/// - any state → `breach` when usage goes above L (strictly: exactly L is within quota);
/// - `ok` → `warning` when usage reaches W;
/// - `breach` → `warning` only when usage falls to L − B or below, and to `ok` directly when
///   it falls below W − B;
/// - `warning` → `ok` only when usage falls below W − B.
///
/// Lines move with the effective limit (a level change, a budget re-split): the same rules
/// apply to the new lines at the next evaluation, so going Critical can breach a directory
/// that nothing wrote to.
package struct QuotaTracker: Sendable, Hashable {
    package private(set) var state: QuotaState = .ok

    package init(state: QuotaState = .ok) { self.state = state }

    /// Feeds the current usage and lines; returns the new state when it changed.
    package mutating func update(used: UInt64, effectiveLimit: UInt64, thresholds: QuotaThresholds) -> QuotaState? {
        let next = next(used: used, effectiveLimit: effectiveLimit, thresholds: thresholds)
        guard next != state else { return nil }
        state = next
        return next
    }

    /// The same, but only a change for the worse (towards `breach`): what a directory held by a
    /// cleanup run still reports at once. Its way down waits for the run's end.
    package mutating func worsen(used: UInt64, effectiveLimit: UInt64, thresholds: QuotaThresholds) -> QuotaState? {
        let next = next(used: used, effectiveLimit: effectiveLimit, thresholds: thresholds)
        guard next.severity > state.severity else { return nil }
        state = next
        return next
    }

    /// The state the usage and lines lead to from the current one.
    private func next(used: UInt64, effectiveLimit: UInt64, thresholds: QuotaThresholds) -> QuotaState {
        let limit = Double(effectiveLimit)
        let usage = Double(used)
        let warningLine = limit * thresholds.warningRatio
        let band = limit * max(thresholds.hysteresis, 0)
        let next: QuotaState
        if usage > limit {
            next = .breach
        } else {
            switch state {
            case .ok:
                next = usage >= warningLine ? .warning : .ok
            case .warning:
                next = usage < warningLine - band ? .ok : .warning
            case .breach:
                if usage < warningLine - band {
                    next = .ok
                } else if usage <= limit - band {
                    next = .warning
                } else {
                    next = .breach
                }
            }
        }
        return next
    }
}

extension QuotaState {
    /// ok < warning < breach.
    var severity: Int {
        switch self {
        case .ok: 0
        case .warning: 1
        case .breach: 2
        }
    }
}
