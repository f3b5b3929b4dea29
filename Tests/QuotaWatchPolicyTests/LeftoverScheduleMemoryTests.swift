import QuotaWatchPolicy
import Testing

@Suite("leftover schedule memory")
struct LeftoverScheduleMemoryTests {
    let age = Duration.seconds(3_600)

    /// One download that stays holds the head of the heap for an hour; 100 000 others made and
    /// deleted meanwhile must not each leave their deadline behind it until then.
    @Test("removed candidates' deadlines are dropped once they outnumber the live ones, and none is lost")
    func removedCandidatesLeaveTheHeap() {
        var schedule = LeftoverSchedule<Int>()
        schedule.written(
            0, path: Array("tmp/CFNetworkDownload_kept.tmp".utf8), rule: "cfnetwork-download", age: age, at: .seconds(0)
        )
        for key in 1...100_000 {
            let moment = Moment.seconds(Double(key / 100))
            schedule.written(
                key, path: Array("tmp/CFNetworkDownload_\(key).tmp".utf8), rule: "cfnetwork-download", age: age,
                at: moment)
            // The same file re-stat'ed with an unchanged modification time pushes its deadline again.
            if key % 3 == 0 {
                schedule.written(
                    key, path: Array("tmp/CFNetworkDownload_\(key).tmp".utf8), rule: "cfnetwork-download", age: age,
                    at: moment)
            }
            if key % 1_000 != 0 { schedule.removed(key) }
        }
        #expect(schedule.candidates.count == 101)
        #expect(
            schedule.heldDeadlines <= 2 * 101 + 1_024 + 1, "\(schedule.heldDeadlines) deadlines held for 101 candidates"
        )
        #expect(schedule.nextDeadline() == .seconds(3_600))
        // Every candidate left still comes due exactly once.
        var due = schedule.due(at: .seconds(3_600 + 1_000))
        due.sort()
        #expect(due == [0] + stride(from: 1_000, through: 100_000, by: 1_000).map { $0 })
    }
}
