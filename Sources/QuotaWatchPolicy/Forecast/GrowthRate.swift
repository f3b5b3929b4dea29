/// How fast one number (a directory's size) grows: the growth over a sliding window divided by
/// the time it spans.
///
/// Readings are a step function: a reading says "the size became S at T", and the size stays S
/// until the next one. That is what the engine gives (it reads a directory when it changes, not
/// on a clock), so an idle stretch costs no readings and still counts as zero growth.
///
/// The span the growth is divided by is the window, shortened to the time since the first
/// reading and to the time since growth resumed after an idle window (the growth counted from
/// the size before it resumed): a writer that starts on an idle directory, or right after the
/// daemon started, is not averaged with a minute of nothing. It is never shorter than `minimumSpan`, so one write after a long idle stretch
/// reads as that write spread over a few seconds, not as an instant burst. A steady writer is
/// therefore measured exactly once `minimumSpan` has passed, whatever came before.
///
/// Memory is bounded: readings closer together than a 64th of the window are merged into the
/// later one, so a window holds at most about 65 of them.
package struct GrowthRate: Sendable, Hashable {
    package struct Reading: Sendable, Hashable {
        package var moment: Moment
        package var size: UInt64
    }

    package let window: Duration
    package let minimumSpan: Duration
    /// Oldest first: every reading inside the window, plus the last one before it (the size at
    /// the window's start).
    package private(set) var readings: [Reading] = []
    /// When growth last resumed after more than a window without any change.
    private var activeSince: Moment?

    package init(window: Duration = .seconds(30), minimumSpan: Duration? = nil) {
        self.window = max(window, .milliseconds(1))
        self.minimumSpan = min(minimumSpan ?? self.window / 6, self.window)
    }

    /// Records that the size is `size` at `moment`. Moments that go back are taken as `moment`
    /// of the last reading (the clock is monotonic; this only guards against misuse).
    package mutating func record(_ size: UInt64, at moment: Moment) {
        guard let last = readings.last else {
            readings.append(Reading(moment: moment, size: size))
            activeSince = moment
            return
        }
        let moment = max(moment, last.moment)
        guard size != last.size else { return }
        if moment - last.moment > window { activeSince = moment }
        let bucket = window / 64
        if readings.count >= 2, moment - readings[readings.count - 2].moment < bucket {
            readings[readings.count - 1] = Reading(moment: moment, size: size)
        } else {
            readings.append(Reading(moment: moment, size: size))
        }
        dropBefore(moment - window)
    }

    /// Bytes per second as of `moment` (negative when it shrank); nil before the first reading.
    package func bytesPerSecond(at moment: Moment) -> Double? { estimate(at: moment)?.bytesPerSecond }

    /// The rate as of `moment`, and whether it spans at least `minimumSpan` of readings: before
    /// that it is still rising towards a new writer's rate, too early to forecast from.
    package func estimate(at moment: Moment) -> (bytesPerSecond: Double, isSettled: Bool)? {
        guard let first = readings.first, let last = readings.last else { return nil }
        let now = max(moment, last.moment)
        var start = now - window
        let startSize: UInt64
        if let activeSince, activeSince > start, activeSince > first.moment {
            // Growth resumed with the reading at `activeSince`: it counts from the size before
            // that reading. Taking the size at it would lose the first change, and read a file
            // that came and went after an idle window as the directory shrinking.
            start = activeSince
            startSize = size(before: start)
        } else {
            start = max(start, first.moment)
            startSize = size(at: start)
        }
        let span = max(now - start, minimumSpan)
        guard span > .zero else { return nil }
        return ((Double(last.size) - Double(startSize)) / span.secondsValue, now - start >= minimumSpan)
    }

    /// The size at `moment`: that of the last reading not after it (the first reading's before
    /// any).
    private func size(at moment: Moment) -> UInt64 {
        var result = readings[0].size
        for reading in readings {
            guard reading.moment <= moment else { break }
            result = reading.size
        }
        return result
    }

    /// The size just before `moment`: that of the last reading before it (the first reading's
    /// when none is).
    private func size(before moment: Moment) -> UInt64 {
        var result = readings[0].size
        for reading in readings {
            guard reading.moment < moment else { break }
            result = reading.size
        }
        return result
    }

    /// Forgets readings before `horizon`, keeping the last of them: the size at the window's
    /// start.
    private mutating func dropBefore(_ horizon: Moment) {
        var firstKept = 0
        while firstKept + 1 < readings.count, readings[firstKept + 1].moment <= horizon { firstKept += 1 }
        if firstKept > 0 { readings.removeFirst(firstKept) }
    }
}
