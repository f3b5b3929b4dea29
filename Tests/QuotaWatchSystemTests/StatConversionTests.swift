import Glibc
import QuotaWatchCore
import Testing

@testable import QuotaWatchSystem

/// `stat` and `statvfs` fields at the ends of their ranges, as a hostile or broken file system
/// (or `touch -d @9223372037`, `truncate -s 8E-1`) hands them over.
@Suite("kernel values to plain values")
struct StatConversionTests {
    @Test("a stat with times past 2262 and before 1677, 2⁶³-byte sizes and huge block counts converts without trapping")
    func extremeStat() {
        var raw = stat()
        raw.st_mode = S_IFREG | 0o644
        raw.st_nlink = .max
        raw.st_size = .max
        raw.st_blocks = .max
        raw.st_mtim = timespec(tv_sec: 9_223_372_037, tv_nsec: 0)
        let future = FileStatus(raw)
        #expect(future.modifiedNanoseconds == .max)
        #expect(future.apparentBytes == UInt64(Int64.max))
        #expect(future.allocatedBytes == .max)
        #expect(future.linkCount == .max)

        raw.st_mtim = timespec(tv_sec: -9_223_372_037, tv_nsec: 0)
        raw.st_size = -1
        raw.st_blocks = -1
        let past = FileStatus(raw)
        #expect(past.modifiedNanoseconds == .min)
        #expect(past.apparentBytes == 0 && past.allocatedBytes == 0)

        raw.st_mtim = timespec(tv_sec: 0, tv_nsec: -1)
        #expect(FileStatus(raw).modifiedNanoseconds == 0)
    }
}
