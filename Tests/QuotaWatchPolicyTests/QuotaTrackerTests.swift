import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("QuotaTracker hysteresis")
struct QuotaTrackerTests {
    // Limit 1000: warning line 800, band 20.
    let thresholds = QuotaThresholds(warningRatio: 0.8, hysteresis: 0.02)

    func run(_ usages: [UInt64], limit: UInt64 = 1000) -> [QuotaState?] {
        var tracker = QuotaTracker()
        return usages.map { tracker.update(used: $0, effectiveLimit: limit, thresholds: thresholds) }
    }

    @Test("each crossing is reported once")
    func crossings() {
        #expect(run([100, 799, 800, 900, 1000, 1001, 2000]) == [nil, nil, .warning, nil, nil, .breach, nil])
    }

    @Test("hovering at the warning line does not flap")
    func hoverWarning() {
        #expect(run([800, 799, 781, 800, 780, 779, 800]) == [.warning, nil, nil, nil, nil, .ok, .warning])
    }

    @Test("leaving a breach needs the band below the limit")
    func hoverBreach() {
        #expect(run([1001, 999, 981, 1001, 980]) == [.breach, nil, nil, nil, .warning])
        #expect(run([1001, 100]) == [.breach, .ok], "a big delete goes straight to ok")
    }

    @Test("a lower effective limit breaches a directory nothing wrote to")
    func limitMoves() {
        var tracker = QuotaTracker()
        #expect(tracker.update(used: 500, effectiveLimit: 1000, thresholds: thresholds) == nil)
        #expect(tracker.update(used: 500, effectiveLimit: 400, thresholds: thresholds) == .breach)
        #expect(tracker.update(used: 500, effectiveLimit: 1000, thresholds: thresholds) == .ok)
    }

    @Test("held by a cleanup run, a tracker only gets worse: its way down waits for the release")
    func worsenOnly() {
        var tracker = QuotaTracker()
        #expect(tracker.worsen(used: 850, effectiveLimit: 1000, thresholds: thresholds) == .warning)
        #expect(tracker.worsen(used: 1001, effectiveLimit: 1000, thresholds: thresholds) == .breach)
        #expect(tracker.worsen(used: 100, effectiveLimit: 1000, thresholds: thresholds) == nil)
        #expect(tracker.state == .breach)
        #expect(tracker.update(used: 100, effectiveLimit: 1000, thresholds: thresholds) == .ok)
    }
}
