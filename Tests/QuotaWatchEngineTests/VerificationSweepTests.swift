import QuotaWatchCore
import QuotaWatchEngine
import Synchronization
import Testing

/// The background verification sweep on the engine's own turn over the fake file system:
/// what no event reports is found and corrected within one pass, counted only when no event
/// could still be on its way, within the CPU budget, and never while the tree is unsettled.
@Suite("verification sweep")
struct VerificationSweepTests {
    /// 100 s after the epoch: the wall clock the sweep compares change times with.
    static let wall: Int64 = 100_000_000_000

    /// A tree of three directories and three files, crawled, with the sweep due in a minute
    /// and free of CPU (the budget is tested on its own).
    private func harness(sliceSize: Int = 2) throws -> LiveTreeHarness {
        var fs = FakeFileSystem()
        try fs.mkdir("a")
        try fs.mkdir("a/b")
        try fs.createFile("a/f", size: 1000)
        try fs.createFile("a/g", size: 5000)
        try fs.createFile("a/b/h", size: 9000)
        var h = LiveTreeHarness(fs)
        h.live.verification = VerificationSweep(
            .init(every: .seconds(60), cpuBudget: 1, sliceSize: sliceSize, quietFor: .seconds(2)), now: h.now)
        h.step.cpuTime = { .zero }
        h.step.wallNow = { Self.wall }
        return h
    }

    /// Turns, each when the sweep asks for one, until the pass going on has finished.
    private func finishPass(_ h: inout LiveTreeHarness, wall: Int64 = wall) {
        h.step.wallNow = { wall }
        let passes = h.live.verification.passesFinished
        for _ in 0..<1000 where h.live.verification.passesFinished == passes {
            h.now = max(h.now + 1_000_000, h.conditions.verifyDeadline ?? 0)
            h.runDueWork()
        }
    }

    @Test("a write no event reported is corrected within one pass and counted as a size change")
    func silentWriteIsCorrected() throws {
        var h = try harness()
        try h.fs.write("a/f", size: 50_000)
        h.fs.discardEvents()
        #expect(!h.mismatches().isEmpty, "the write is invisible before the sweep")

        h.advance(milliseconds: 59_999)
        h.runDueWork()
        #expect(h.live.verification.current == nil, "no pass before its period")
        #expect(!h.mismatches().isEmpty)

        h.advance(milliseconds: 1)
        h.runDueWork()
        #expect(h.live.verification.current != nil, "the pass starts once due")
        finishPass(&h)
        expectExact(h, "after one pass")
        let pass = try #require(h.live.verification.last)
        #expect(pass.checked == 6, "three directories and three files")
        #expect(pass.corrections == 1)
        #expect(h.live.verification.corrections == [.size: 1])
    }

    @Test("allocation settled with no event is counted as allocation, a name gone as replaced")
    func reasons() throws {
        var h = try harness()
        try h.fs.settleAllocation("a/g", allocated: 1 << 20)
        try h.fs.unlink("a/b/h")
        h.fs.discardEvents()
        h.advance(milliseconds: 60_000)
        finishPass(&h)
        expectExact(h, "after one pass")
        #expect(h.live.verification.corrections[.allocation] == 1)
        #expect(h.live.verification.corrections[.replaced] == 1)
    }

    @Test("a recent difference whose event comes is looked at again and not counted")
    func recentDifferenceWithItsEvent() throws {
        var h = try harness(sliceSize: 100)
        h.advance(milliseconds: 60_000)
        h.fs.wallNow = Self.wall - 500_000_000
        try h.fs.write("a/f", size: 70_000)
        // The write's events are still in the queue when the slice stats the file.
        h.runDueWork()
        #expect(h.live.verification.current != nil, "the pass waits for its second look")
        #expect(!h.mismatches().isEmpty, "a recent difference is left to its event")
        h.deliverAndWait()
        finishPass(&h, wall: Self.wall + 2_000_000_000)
        expectExact(h, "after the event and the second look")
        #expect(h.live.verification.corrections.isEmpty, "the event reported it: \(h.live.verification.corrections)")
    }

    @Test("a recent difference no event settles is corrected at the second look and counted")
    func recentDifferenceWithoutEvent() throws {
        var h = try harness(sliceSize: 100)
        h.advance(milliseconds: 60_000)
        h.fs.wallNow = Self.wall - 500_000_000
        try h.fs.write("a/f", size: 70_000)
        h.fs.discardEvents()
        h.runDueWork()
        #expect(!h.mismatches().isEmpty)
        let deadline = try #require(h.conditions.verifyDeadline)
        #expect(deadline >= h.now + 1_500_000_000, "the loop sleeps until the second look is due")
        finishPass(&h, wall: Self.wall + 2_000_000_000)
        expectExact(h, "after the second look")
        #expect(h.live.verification.corrections == [.size: 1])
    }

    @Test("after a slice that took c of CPU the next waits c ÷ budget")
    func keepsToItsBudget() throws {
        var h = try harness()
        h.live.verification = VerificationSweep(
            .init(every: .seconds(60), cpuBudget: 0.01, sliceSize: 2), now: h.now)
        let spent = Mutex(Duration.zero)
        // Each reading is 2.5 ms after the last: a slice costs 2.5 ms of CPU.
        h.step.cpuTime = {
            spent.withLock {
                $0 += .microseconds(2500)
                return $0
            }
        }
        h.advance(milliseconds: 60_000)
        h.runDueWork()
        #expect(h.live.verification.nextDue == h.now + 250_000_000, "2.5 ms at 1 % is 250 ms")
        #expect(h.schedule.wakeDeadline(h.conditions) == h.now + 250_000_000)
        h.advance(milliseconds: 249)
        let checked = h.live.verification.checkedTotal
        h.runDueWork()
        #expect(h.live.verification.checkedTotal == checked, "no slice before its time")
        h.advance(milliseconds: 1)
        h.runDueWork()
        #expect(h.live.verification.checkedTotal > checked)
    }

    /// The loop's wake-up around a slice is not charged to the budget, so at 1 % slices of
    /// 1 024 names (4.5 wake-ups a second on the idle sandbox-200k) cost 1.10 % of a core.
    @Test("slices grow until each takes about sliceCPU: at 1 % the sweep wakes the loop about once a second")
    func slicesFollowTheirCost() {
        var sweep = VerificationSweep(.init(every: .seconds(1), cpuBudget: 0.01, sliceSize: 1024), now: 0)
        sweep.begin((0..<1_000_000).map { DirectoryID(rawValue: UInt32($0)) }, now: 0, wallNow: 0)
        // 2.2 µs of CPU a name, what a name of the idle sandbox-200k cost.
        let perName = 2200
        var now: UInt64 = 0
        var wakeups = 0
        var names = 0
        while now < 60_000_000_000 {
            let slice = sweep.sliceNames
            for _ in 0..<slice { _ = sweep.next(wallNow: 0) }
            sweep.sliceEnded(cpu: .nanoseconds(slice * perName), now: now)
            names += slice
            now = sweep.nextDue ?? .max
            wakeups += 1
        }
        #expect((55...75).contains(wakeups), "\(wakeups) wake-ups in 60 s")
        let budgetsRate = 0.01 / 2.2e-6
        #expect(abs(Double(names) / 60 - budgetsRate) < budgetsRate * 0.05, "\(names / 60) names/s: the budget's rate")
        let fitting = 10_000_000 / perName
        #expect(abs(sweep.sliceNames - fitting) <= fitting / 10, "\(sweep.sliceNames) names a slice")
    }

    @Test("a slice cut short by the pass's end does not resize the next; a costlier tree shrinks slices")
    func shortSlicesTellNothing() {
        var sweep = VerificationSweep(.init(every: .seconds(1), cpuBudget: 0.01, sliceSize: 1000), now: 0)
        sweep.begin((0..<10).map { DirectoryID(rawValue: UInt32($0)) }, now: 0, wallNow: 0)
        for _ in 0..<10 { _ = sweep.next(wallNow: 0) }
        sweep.sliceEnded(cpu: .microseconds(10), now: 0)
        #expect(sweep.sliceNames == 1000, "10 names in 10 µs is no measure of a full slice")
        sweep.begin((0..<5000).map { DirectoryID(rawValue: UInt32($0)) }, now: 0, wallNow: 0)
        for _ in 0..<1000 { _ = sweep.next(wallNow: 0) }
        sweep.sliceEnded(cpu: .milliseconds(40), now: 0)
        #expect(sweep.sliceNames == 500, "4 times too slow: halved, no more at once")
    }

    @Test("no slice while a move is half seen; the next pass waits for its period")
    func waitsForASettledTree() throws {
        var h = try harness(sliceSize: 100)
        try h.fs.rename("a/f", "a/f2")
        h.advance(milliseconds: 60_000)
        h.deliver(1)
        h.runDueWork()
        #expect(!h.live.isSettledForVerification)
        #expect(h.live.verification.current == nil && h.live.verification.last == nil)
        #expect(h.conditions.verifyDeadline == nil, "the move's timer wakes the loop, not the sweep")
        h.deliverAndWait()
        finishPass(&h)
        expectExact(h, "after the move and a pass")
        #expect(h.live.verification.corrections.isEmpty, "\(h.live.verification.corrections)")
        let pass = try #require(h.live.verification.last)
        #expect(h.live.verification.nextDue == pass.started + 60_000_000_000)
    }

    @Test("while an overflow waits for its resync the sweep sets no wake-up of its own")
    func noWakeUpWhileOverflowed() throws {
        var h = try harness(sliceSize: 100)
        h.advance(milliseconds: 60_000)
        h.fs.queueCapacity = 1
        for index in 0..<4 { try h.fs.createFile(FakePath(components: [Array("a".utf8), Array("n\(index)".utf8)])) }
        h.deliver()
        #expect(h.live.needsResync)
        #expect(h.live.verification.isDue(h.now))
        #expect(h.conditions.verifyDeadline == nil, "a due sweep would spin the loop until the resync")
    }

    @Test("a resync drops the pass going on")
    func resyncDropsThePass() throws {
        var h = try harness(sliceSize: 1)
        h.advance(milliseconds: 60_000)
        h.runDueWork()
        #expect(h.live.verification.current != nil)
        _ = h.step.resyncTree()
        #expect(h.live.verification.current == nil)
        finishPass(&h)
        #expect(h.live.verification.last?.checked == 6, "a new pass over the new tree")
    }
}

@Suite("verification sweep: the log")
struct VerificationLogTests {
    private func correction(_ index: Int, _ reason: VerificationSweep.Reason = .size) -> VerificationSweep.Correction {
        VerificationSweep.Correction(
            path: Array("a/f\(index)".utf8), before: Usage(allocated: 4096, apparent: 10),
            after: Usage(allocated: 8192, apparent: 5000), reason: reason)
    }

    @Test("a line names the path, both sizes and what the reason means")
    func line() {
        let size = VerificationLog.line(for: correction(1))
        #expect(size.contains("'a/f1'"))
        #expect(size.contains("allocated 4096 → 8192 B, apparent 10 → 5000 B"))
        #expect(size.contains("please report this line as a QuotaWatch bug"))
        let allocation = VerificationLog.line(for: correction(2, .allocation))
        #expect(!allocation.contains("bug"), "writeback after the re-stats is no bug: \(allocation)")
        var gone = correction(3, .replaced)
        gone.after = nil
        #expect(VerificationLog.line(for: gone).contains("→ gone"))
    }

    @Test("the first 20 of a pass are logged, then one line says the rest are only counted")
    func capped() {
        let first = VerificationLog.lines(for: (0..<15).map { correction($0) }, earlier: 0)
        #expect(first.count == 15)
        let second = VerificationLog.lines(for: (15..<30).map { correction($0) }, earlier: 15)
        #expect(second.count == 6, "5 more, then the note")
        #expect(second.last?.contains("the rest are counted") == true)
        #expect(VerificationLog.lines(for: [correction(31)], earlier: 31).isEmpty)
    }
}
