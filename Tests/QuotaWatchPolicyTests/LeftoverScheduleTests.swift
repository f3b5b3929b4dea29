import Foundation
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@Suite("leftover schedule")
struct LeftoverScheduleTests {
    let age = Duration.seconds(60)
    let download = Array("tmp/CFNetworkDownload_a.tmp".utf8)

    @Test("a candidate is due at its last write + age, reported once, and written again it stops being one")
    func lifeOfOneDownload() {
        var schedule = LeftoverSchedule<Int>()
        schedule.written(1, path: download, rule: "cfnetwork-download", age: age, at: .seconds(10))
        #expect(schedule.nextDeadline() == .seconds(70))
        #expect(schedule.due(at: .seconds(69)).isEmpty)
        #expect(schedule.due(at: .seconds(70)) == [1])
        let reported = schedule.checked(1, at: .seconds(70), openForWriting: false)
        #expect(reported?.rule == "cfnetwork-download")
        #expect(reported?.path == download)
        #expect(schedule.leftovers.map(\.path) == [download])
        #expect(schedule.nextDeadline() == nil)
        #expect(schedule.due(at: .seconds(1000)).isEmpty)
        let stopped = schedule.written(1, path: download, rule: "cfnetwork-download", age: age, at: .seconds(2000))
        #expect(stopped?.rule == "cfnetwork-download" && stopped?.path == download)
        #expect(schedule.leftovers.isEmpty)
        #expect(schedule.nextDeadline() == .seconds(2060))
    }

    @Test("a download held open for writing is looked at again one age later, never reported meanwhile")
    func heldOpen() {
        var schedule = LeftoverSchedule<Int>()
        schedule.written(1, path: download, rule: "cfnetwork-download", age: age, at: .seconds(0))
        #expect(schedule.due(at: .seconds(60)) == [1])
        #expect(schedule.checked(1, at: .seconds(60), openForWriting: true) == nil)
        #expect(schedule.leftovers.isEmpty)
        #expect(schedule.nextDeadline() == .seconds(120))
        #expect(schedule.due(at: .seconds(119)).isEmpty)
        #expect(schedule.due(at: .seconds(120)) == [1])
        #expect(schedule.checked(1, at: .seconds(120), openForWriting: false) != nil)
    }

    @Test("writes push the deadline; superseded deadlines never fire; a removed file is forgotten")
    func rewritesAndRemovals() {
        var schedule = LeftoverSchedule<Int>()
        for second in stride(from: 0, through: 50, by: 10) {
            schedule.written(1, path: download, rule: "r", age: age, at: .seconds(Double(second)))
        }
        schedule.written(2, path: Array("tmp/b".utf8), rule: "r", age: age, at: .seconds(5))
        #expect(schedule.nextDeadline() == .seconds(65))
        #expect(schedule.due(at: .seconds(100)) == [2])
        #expect(schedule.due(at: .seconds(110)) == [1])
        schedule.removed(1)
        #expect(schedule.checked(1, at: .seconds(200), openForWriting: false) == nil)
        #expect(schedule.due(at: .seconds(10_000)).isEmpty)
    }

    @Test("due candidates come out in deadline order, each once, for any order of writes", arguments: [1, 2, 3, 42])
    func orderAgainstSorting(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var schedule = LeftoverSchedule<Int>()
        var lastWrite: [Int: Int] = [:]
        for _ in 0..<500 {
            let key = Int.random(in: 0..<60, using: &generator)
            let moment = Int.random(in: 0..<1000, using: &generator)
            schedule.written(key, path: [UInt8(key)], rule: "r", age: age, at: .seconds(Double(moment)))
            lastWrite[key] = max(lastWrite[key] ?? 0, moment)
        }
        var seen: [Int] = []
        var now = 0
        while now <= 1100 {
            let due = schedule.due(at: .seconds(Double(now)))
            for key in due {
                #expect(lastWrite[key]! + 60 <= now, "seed \(seed): key \(key) came out early")
                _ = schedule.checked(key, at: .seconds(Double(now)), openForWriting: false)
            }
            seen += due
            now += 7
        }
        #expect(seen.sorted() == lastWrite.keys.sorted(), "seed \(seed)")
        #expect(Set(seen).count == seen.count, "seed \(seed): a key came out twice")
    }
}
