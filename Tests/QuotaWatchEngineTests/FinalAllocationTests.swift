import QuotaWatchCore
import Testing

@testable import QuotaWatchEngine

/// Where the file system keeps a small file's allocation until its next event (ext4: four
/// blocks or fewer, no hole), the stat after the events is the last one that file needs: no late
/// re-stat, no writeback re-stat, no second stat at a sync. Larger files keep all three.
@Suite("files whose allocation is final are owed no re-stat")
struct FinalAllocationTests {
    @Test func aSmallFileIsOwedNothingAfterItsStatAndALargeOneKeepsItsTimers() throws {
        var fs = FakeFileSystem(handleCapacity: 8)
        fs.allocationFinality = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 4096)
        var h = LiveTreeHarness(fs)
        try h.fs.createFile("small", size: 512)
        try h.fs.createFile("large", size: 50_000, allocated: 53_248)
        try h.fs.createFile("sparse", size: 8_192, allocated: 4_096)
        h.deliver()
        h.flush()
        let owed = Set(h.live.restats.names.map { String(decoding: $0.name, as: UTF8.self) })
        #expect(owed == ["large", "sparse"], "only the files whose allocation can still change are owed re-stats")
        try h.fs.settleAllocation("large", allocated: 57_344)
        try h.fs.settleAllocation("sparse", allocated: 8_192)  // its hole filled through a mapping
        h.sync()
        expectExact(h, "the large file's writeback block and the sparse one's mapped write, at a sync")
    }

    /// The stat decides: a write schedules nothing at its event (scheduled there, nearly every
    /// file of a burst had its timers forgotten again at its stat), and a file whose stat shows
    /// an allocation that can still change is owed its late re-stat from the write's moment.
    @Test func aWriteSchedulesNothingBeforeItsStat() throws {
        var fs = FakeFileSystem(handleCapacity: 8)
        fs.allocationFinality = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 4096)
        var h = LiveTreeHarness(fs)
        let written = h.now
        try h.fs.createFile("small", size: 512)
        try h.fs.createFile("large", size: 50_000, allocated: 53_248)
        h.deliver()
        #expect(h.live.restats.late.isEmpty, "nothing is scheduled before the stat")
        h.advance(milliseconds: 20)
        h.flush()
        let late = Dictionary(
            uniqueKeysWithValues: h.live.restats.late.map { (String(decoding: $0.key.name, as: UTF8.self), $0.value) })
        #expect(late == ["large": written + h.live.lateRestatDelay], "from the write, not from the flush")
        try h.fs.settleAllocation("large", allocated: 57_344)
        h.now = written + h.live.lateRestatDelay
        h.deliver()
        h.flush()
        expectExact(h, "the late re-stat, on time")
    }

    @Test func aSmallFileWrittenAgainIsStatAgainByItsEvent() throws {
        var fs = FakeFileSystem(handleCapacity: 8)
        fs.allocationFinality = AllocationFinality(fileSystemType: AllocationFinality.ext4Magic, blockSize: 4096)
        var h = LiveTreeHarness(fs)
        try h.fs.createFile("f", size: 512)
        h.deliver()
        h.flush()
        try h.fs.write("f", size: 100_000)
        h.deliver()
        h.flush()
        expectExact(h, "grown past the limit by a write")
        #expect(h.live.restats.names.count == 1, "grown past the limit, it is owed its re-stats again")
    }
}
