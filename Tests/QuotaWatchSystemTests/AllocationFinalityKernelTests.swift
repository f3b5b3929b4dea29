import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

/// The kernel's word for ``AllocationFinality``, on the file system the tests run on: every
/// file the rule calls final shows the same `st_blocks` after `sync(2)` as at its close, and
/// (on ext4) a file of five separate blocks, which the rule does not trust, gains its extent
/// tree block at writeback, so the check could fail.
@Suite("a final allocation does not change at writeback")
struct AllocationFinalityKernelTests {
    /// Writes `pieces` blocks of 4 KiB at `stride` blocks apart (a gap keeps them separate
    /// extents), or `bytes` at offset 0 when `pieces` is 0.
    private func write(_ path: String, bytes: Int = 0, pieces: Int = 0, stride: Int = 2) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        defer { _ = close(descriptor) }
        let block = [UInt8](repeating: 0x71, count: pieces == 0 ? bytes : 4096)
        let writes = pieces == 0 ? (bytes == 0 ? 0 : 1) : pieces
        for index in 0..<writes {
            let written = unsafe block.withUnsafeBytes {
                unsafe pwrite(descriptor, $0.baseAddress, $0.count, off_t(index * stride * 4096))
            }
            guard written == block.count else { throw Errno(rawValue: errno) }
        }
    }

    @Test func smallFilesKeepTheirBlocksThroughWriteback() throws {
        let scratch = try ScratchDirectory()
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(scratch.path.bytes)
        defer { directory.close() }
        let finality = try directory.allocationFinality()
        guard finality.fileSystemType == AllocationFinality.ext4Magic else {
            print("skipped: the scratch directory is not on ext4 (f_type \(finality.fileSystemType))")
            return
        }
        let cases: [(name: String, bytes: Int, pieces: Int)] = [
            ("empty", 0, 0), ("b512", 512, 0), ("b4096", 4096, 0), ("b16k", 16_384, 0), ("b16k1", 16_385, 0),
            ("m1", 1 << 20, 0), ("frag3", 0, 3), ("frag4", 0, 4), ("frag5", 0, 5), ("frag20", 0, 20),
        ]
        var atClose: [String: FileStatus] = [:]
        for file in cases {
            try write(scratch.file(file.name), bytes: file.bytes, pieces: file.pieces)
            atClose[file.name] = try directory.status(of: file.name.bytes)
        }
        sync()
        var finals = 0
        for file in cases {
            let before = atClose[file.name]!
            let after = try directory.status(of: file.name.bytes).allocatedBytes
            if finality.isFinal(apparentBytes: before.apparentBytes, allocatedBytes: before.allocatedBytes) {
                finals += 1
                #expect(
                    after == before.allocatedBytes,
                    "\(file.name): called final at \(before.allocatedBytes) B, \(after) B after writeback")
            }
        }
        #expect(finals == 4, "empty, 512 B, 4 KiB and 16 KiB are final; the rest has holes or is larger")
        let fragmented = atClose["frag5"]!
        #expect(!finality.isFinal(apparentBytes: fragmented.apparentBytes, allocatedBytes: fragmented.allocatedBytes))
        #expect(
            try directory.status(of: "frag5".bytes).allocatedBytes > fragmented.allocatedBytes,
            "ext4 adds the extent tree's block at writeback: the check above is one that can fail")
    }
}
