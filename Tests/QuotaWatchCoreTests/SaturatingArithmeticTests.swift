import Testing

@testable import QuotaWatchCore

/// Conversions of values from the kernel, the socket and stored files, at the ends of their
/// ranges: each has a defined result, and none traps.
@Suite("saturating conversions")
struct SaturatingArithmeticTests {
    @Test("file times past 2262 and before 1677 clamp to the ends of Int64 nanoseconds")
    func fileTimes() {
        // `touch -d @9223372037`: one second past what Int64 nanoseconds hold.
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 9_223_372_037, nanoseconds: 0) == .max)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: -9_223_372_037, nanoseconds: 0) == .min)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: .max, nanoseconds: 999_999_999) == .max)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: .min, nanoseconds: 0) == .min)
        // Just inside the range: exact.
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 9_223_372_036, nanoseconds: 854_775_807) == .max)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 9_223_372_036, nanoseconds: 854_775_806) == .max - 1)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: -9_223_372_037, nanoseconds: 145_224_192) == .min)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 1, nanoseconds: 5) == 1_000_000_005)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: -1, nanoseconds: 5) == -999_999_995)
        // A tv_nsec no file system should report is clamped into 0 ..< 10⁹.
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 0, nanoseconds: -5) == 0)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: 0, nanoseconds: .max) == 999_999_999)
        #expect(FileTime.nanosecondsSinceEpoch(seconds: .max, nanoseconds: .min) == .max)
    }

    @Test("products and sums saturate; differences of times saturate both ways")
    func integers() {
        #expect(Saturating.product(UInt64(Int64.max), 512) == .max)
        #expect(Saturating.product(UInt64(1) << 54, 512) == 1 << 63)
        #expect(Saturating.product(UInt64.max, 0) == 0)
        #expect(Saturating.sum(UInt64.max, 1) == .max)
        #expect(Saturating.sum(UInt64(1), 2) == 3)
        #expect(Saturating.product(Int64.max, -2) == .min)
        #expect(Saturating.product(Int64.min, -1) == .max)
        #expect(Saturating.sum(Int64.max, 1) == .max)
        #expect(Saturating.sum(Int64.min, -1) == .min)
        #expect(Saturating.difference(Int64.max, Int64.min) == .max)
        #expect(Saturating.difference(Int64.min, Int64.max) == .min)
        #expect(Saturating.difference(0, Int64.min) == .max)
        #expect(Saturating.difference(5, 7) == -2)
    }

    @Test("floating-point values clamp to the integer range; NaN is 0")
    func floatingPoint() {
        #expect(Saturating.int64(1e300) == .max)
        #expect(Saturating.int64(-1e300) == .min)
        #expect(Saturating.int64(.infinity) == .max)
        #expect(Saturating.int64(.nan) == 0)
        #expect(Saturating.int64(9_223_372_036_854_775_807.0) == .max)
        #expect(Saturating.int64(-42.9) == -42)
        #expect(Saturating.uint64(Double(UInt64.max)) == .max)
        #expect(Saturating.uint64(-1) == 0)
        #expect(Saturating.uint64(.nan) == 0)
        #expect(Saturating.uint64(1e30) == .max)
        #expect(Saturating.uint64(4096.7) == 4096)
    }

    @Test("durations of any length convert to clamped nanoseconds and milliseconds")
    func durations() {
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).clampedNanoseconds == .min)
        #expect(Duration.seconds(Int64.max).clampedMilliseconds == .max)
        #expect(Duration.milliseconds(1500).clampedNanoseconds == 1_500_000_000)
        #expect(Duration.milliseconds(-1500).clampedMilliseconds == -1500)
        #expect(Duration.nanoseconds(7).clampedMilliseconds == 0)
        // Formatting a duration no parser would give (a socket's, a stored one) does not trap.
        #expect(TimeSpan.format(.seconds(Int64.max)) == "\(Int64.max)ms")
        #expect(TimeSpan.format(.seconds(86_400)) == "1d")
    }

    @Test("a file larger than a record holds is kept at the largest, and removing it gives back what it added")
    func hugeFilesInTheTree() {
        let directory = FileStatus(
            device: 7, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
        var tree = TallyTree(root: directory)
        // st_blocks × 512 saturated at UInt64.max (a file system that lies), and st_size at 2⁶³ − 1.
        let huge = FileStatus(
            device: 7, inode: 2, kind: .regular, linkCount: 1, apparentBytes: UInt64(Int64.max),
            allocatedBytes: .max)
        let file = tree.addFile(named: Array("huge".utf8), in: tree.root, status: huge)
        #expect(tree.tally(of: tree.root).allocated == 4096 + FileRecord.largestAllocated)
        #expect(tree.tally(of: tree.root).apparent == 4096 + UInt64(Int64.max))
        var smaller = huge
        smaller.allocatedBytes = 1000  // not a whole number of blocks: kept as whole blocks
        tree.updateFile(file, status: smaller)
        #expect(tree.tally(of: tree.root).allocated == 4096 + 512)
        tree.updateFile(file, status: huge)
        tree.removeFile(file)
        #expect(tree.tally(of: tree.root) == Tally(usage: Usage(allocated: 4096, apparent: 4096), files: 0, dirs: 0))
    }

    @Test("totals past 2⁶⁴ − 1 read as 2⁶⁴ − 1, as du's stop, and stay exact through removes and moves")
    func totalsPastSixtyFourBits() {
        func directory(_ inode: UInt64) -> FileStatus {
            FileStatus(device: 7, inode: inode, kind: .directory, linkCount: 2, apparentBytes: 60, allocatedBytes: 0)
        }
        func sparse(_ inode: UInt64, links: UInt64 = 1) -> FileStatus {
            FileStatus(
                device: 7, inode: inode, kind: .regular, linkCount: links, apparentBytes: UInt64(Int64.max),
                allocatedBytes: 4096)
        }
        var tree = TallyTree(root: directory(1))
        let giants = tree.addDirectory(named: Array("giants".utf8), in: tree.root, status: directory(2))
        let other = tree.addDirectory(named: Array("other".utf8), in: tree.root, status: directory(3))
        let files = (0..<3).map {
            tree.addFile(named: Array("s\($0)".utf8), in: giants, status: sparse(10 + UInt64($0)))
        }
        // A hard-linked giant too: counted once, through the link table.
        tree.addFile(named: Array("l1".utf8), in: giants, status: sparse(20, links: 2))
        tree.addFile(named: Array("l2".utf8), in: giants, status: sparse(20, links: 2))
        #expect(tree.tally(of: giants).apparent == .max)
        #expect(tree.tally(of: tree.root).apparent == .max)
        #expect(tree.tally(of: giants).allocated == 4 * 4096)
        // Moved away and back, the whole subtree's exact share goes and comes.
        tree.moveDirectory(giants, to: other, named: Array("giants".utf8))
        #expect(tree.tally(of: other).apparent == .max)
        tree.moveDirectory(giants, to: tree.root, named: Array("giants".utf8))
        #expect(tree.tally(of: other).apparent == 60)
        // Back under 2⁶⁴: exact again.
        tree.removeFile(files[0])
        tree.removeFile(files[1])
        tree.removeFile(files[2])
        #expect(tree.tally(of: giants).apparent == 60 + UInt64(Int64.max))
        #expect(tree.tally(of: tree.root).apparent == 3 * 60 + UInt64(Int64.max))
        for index in 3..<6 {
            tree.addFile(named: Array("s\(index)".utf8), in: giants, status: sparse(30 + UInt64(index)))
        }
        tree.removeDirectory(giants)
        #expect(tree.tally(of: tree.root) == Tally(usage: Usage(allocated: 0, apparent: 120), files: 0, dirs: 1))
        #expect(tree.overflowCarries.isEmpty)
    }

    @Test("the phone's total saturates instead of trapping")
    func phoneTotal() {
        let storage = PhoneStorage(
            version: .standard, rawAllocated: .max, rawApparent: .max, cachesAllocated: nil, appAllocated: .max)
        #expect(storage.total == .max)
    }
}
