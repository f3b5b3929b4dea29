import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("disk levels")
struct LevelPolicyTests {
    let policy = LevelPolicy()
    let gb: UInt64 = 1_000_000_000

    func level(
        free: UInt64, total: UInt64, root: UInt64 = 0, current: DiskLevel = .normal, _ policy: LevelPolicy? = nil
    )
        -> DiskLevel
    {
        (policy ?? self.policy).level(
            for: LevelPolicy.Reading(free: free, total: total, rootAllocated: root), current: current)
    }

    @Test("the larger of '10% or 5GB' counts")
    func eitherThreshold() {
        // A 1 TB disk: 10 % is 100 GB.
        #expect(level(free: 150 * gb, total: 1000 * gb) == .normal)
        #expect(level(free: 99 * gb, total: 1000 * gb) == .warning)
        #expect(level(free: 49 * gb, total: 1000 * gb) == .critical)
        // A 20 GB disk: 10 % is 2 GB, so 5 GB is the line.
        #expect(level(free: 6 * gb, total: 20 * gb) == .normal)
        #expect(level(free: 4 * gb, total: 20 * gb) == .warning)
        #expect(level(free: gb - 1, total: 20 * gb) == .critical)
    }

    @Test("ROOT's own total rates the disk too, and the worse wins")
    func rootThresholds() {
        var policy = LevelPolicy()
        policy.rootWarning = 50 * gb
        policy.rootCritical = 80 * gb
        #expect(level(free: 900 * gb, total: 1000 * gb, root: 49 * gb, policy) == .normal)
        #expect(level(free: 900 * gb, total: 1000 * gb, root: 50 * gb, policy) == .warning)
        #expect(level(free: 900 * gb, total: 1000 * gb, root: 81 * gb, policy) == .critical)
        #expect(level(free: 10 * gb, total: 1000 * gb, root: 51 * gb, policy) == .critical)
    }

    @Test("leaving a level needs the hysteresis band")
    func hysteresis() {
        let total = 1000 * gb
        // Warning line 100 GB; band 2 % of it: 2 GB.
        #expect(level(free: 101 * gb, total: total, current: .warning) == .warning)
        #expect(level(free: 102 * gb + 1, total: total, current: .warning) == .normal)
        #expect(level(free: 101 * gb, total: total, current: .normal) == .normal)
        #expect(level(free: 50 * gb + 1, total: total, current: .critical) == .critical)
        #expect(level(free: 52 * gb, total: total, current: .critical) == .warning)
    }

    @Test("the re-read step shrinks near a line, and timed reads speed up as the level worsens")
    func reread() {
        let far = LevelPolicy.Reading(free: 900 * gb, total: 1000 * gb, rootAllocated: 0)
        #expect(policy.rereadStep(after: far) == policy.maximumStep)
        let near = LevelPolicy.Reading(free: 100 * gb + 20_000_000, total: 1000 * gb, rootAllocated: 0)
        #expect(policy.rereadStep(after: near) == 10_000_000)
        var schedule = FreeSpaceSchedule(readAt: .seconds(0), reading: near, policy: policy)
        let first = schedule.recordChange(6_000_000)
        let second = schedule.recordChange(-5_000_000)
        #expect(!first)
        #expect(second, "changes count in either direction")
        schedule.didRead(at: .seconds(3), reading: far, policy: policy)
        #expect(schedule.changedSinceReading == 0)
        #expect(schedule.deadline(level: .normal, policy: policy) == .seconds(63))
        #expect(schedule.deadline(level: .critical, policy: policy) == .seconds(8))
        #expect(policy.scale[.critical] == 0.4 && policy.scale[.warning] == 0.7)
    }
}

@Suite("LevelTracker")
struct LevelTrackerTests {
    @Test("a level event once per change, with the reading")
    func events() {
        let policy = LevelPolicy()
        var tracker = LevelTracker()
        let gb: UInt64 = 1_000_000_000
        let full = LevelPolicy.Reading(free: 80 * gb, total: 1000 * gb, rootAllocated: 7)
        #expect(
            tracker.update(full, policy: policy)
                == .level(from: .normal, to: .warning, free: 80 * gb, total: 1000 * gb, rootAllocated: 7))
        #expect(tracker.update(full, policy: policy) == nil)
        #expect(tracker.level == .warning)
        let roomy = LevelPolicy.Reading(free: 50 * gb, total: 100 * gb, rootAllocated: 7)
        #expect(
            tracker.update(roomy, policy: policy)
                == .level(from: .warning, to: .normal, free: 50 * gb, total: 100 * gb, rootAllocated: 7))
    }
}
