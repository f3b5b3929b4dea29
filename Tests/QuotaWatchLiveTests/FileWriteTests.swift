import Glibc
import QuotaWatchTestSupport
import Testing

/// Writes to files while the daemon runs: after each `status --sync`, every directory's
/// tallies equal a fresh scan's (and du's where asked).
@Suite("live tallies follow file writes")
struct FileWriteTests {
    private let root = LiveFixture.root

    @Test("create, write, append and overwrite")
    func createWriteAppend() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "a" / "b")
        try tree.writeFile(root / "a" / "existing", byteCount: 5_000)
        try fixture.start()

        try tree.makeEmptyFile(root / "empty")
        try tree.writeFile(root / "small", byteCount: 100)
        try tree.writeFile(root / "a" / "b" / "large", byteCount: 300_000)
        try tree.appendToFile(root / "a" / "existing", byteCount: 70_000)
        try fixture.expectLiveMatchesScan("after creating and appending", du: true)

        try tree.appendToFile(root / "empty", byteCount: 1)
        try tree.appendToFile(root / "small", byteCount: 4_000)
        // A write past the end leaves a hole between the old end and the new data.
        try tree.overwriteFile(root / "a" / "b" / "large", at: 2_000_000, byteCount: 10)
        try tree.overwriteFile(root / "a" / "existing", at: 100, byteCount: 1_000)
        for index in 0..<50 { try tree.appendToFile(root / "a" / "b" / "large", byteCount: 1_000 + index) }
        try fixture.expectLiveMatchesScan("after more appends and overwrites", du: true)
        try fixture.stopCleanly()
    }

    @Test("truncate shrinking and growing")
    func truncate() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "t")
        for name in ["shrink", "to-zero", "grow", "grow-then-shrink"] {
            try tree.writeFile(root / "t" / name, byteCount: 1_000_000)
        }
        try fixture.start()

        try tree.truncateFile(root / "t" / "shrink", to: 1_000)
        try tree.truncateFile(root / "t" / "to-zero", to: 0)
        try tree.truncateFile(root / "t" / "grow", to: 50_000_000)
        try tree.truncateFile(root / "t" / "grow-then-shrink", to: 20_000_000)
        try tree.truncateFile(root / "t" / "grow-then-shrink", to: 4_097)
        try fixture.expectLiveMatchesScan("after truncating", du: true)

        try tree.truncateFile(root / "t" / "to-zero", to: 8_192)
        try tree.appendToFile(root / "t" / "shrink", byteCount: 100_000)
        try tree.truncateFile(root / "t" / "grow", to: 0)
        try fixture.expectLiveMatchesScan("after truncating again", du: true)
        try fixture.stopCleanly()
    }

    @Test("fallocate, punched holes and sparse files")
    func preallocatedAndSparse() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "f")
        try tree.writeFile(root / "f" / "punched", byteCount: 2_000_000)
        try tree.writeFile(root / "f" / "kept-size", byteCount: 10_000)
        try fixture.start()

        try tree.makeFallocatedFile(root / "f" / "fallocated", size: 3_000_000)
        try tree.makeSparseFile(root / "f" / "sparse", size: 40_000_000, dataOffsets: [0, 20_000_000])
        try tree.makeSparseFile(root / "hole-only", size: 1 << 30)
        try tree.preallocate(root / "f" / "kept-size", offset: 0, length: 1_000_000)
        // Blocks past the end: allocated grows, apparent does not.
        try tree.runFallocate(root / "f" / "punched", ["-n", "--offset", "2000000", "--length", "5000000"])
        try fixture.expectLiveMatchesScan("after preallocating", du: true)

        // Allocated shrinks, apparent does not.
        try tree.runFallocate(root / "f" / "punched", ["--punch-hole", "--offset", "4096", "--length", "1048576"])
        try tree.runFallocate(root / "f" / "fallocated", ["--punch-hole", "--offset", "0", "--length", "3000000"])
        try tree.overwriteFile(root / "f" / "sparse", at: 30_000_000, byteCount: 100_000)
        try fixture.expectLiveMatchesScan("after punching holes and filling one", du: true)
        try fixture.stopCleanly()
    }

    @Test("unlink and atomic replace by rename")
    func unlinkAndReplace() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "config")
        for index in 0..<20 { try tree.writeFile(root / "config" / "old-\(index)", byteCount: 1_000 * index) }
        try tree.writeFile(root / "config" / "settings", byteCount: 50_000)
        try fixture.start()

        for index in stride(from: 0, to: 20, by: 2) { try tree.unlinkEntry(root / "config" / "old-\(index)") }
        try fixture.expectLiveMatchesScan("after unlinking")

        // The way editors and package managers save: write a temporary name, rename it over.
        for (round, size) in [120_000, 10, 0, 64 * 1024, 333_333].enumerated() {
            let temporary = root / "config" / ".settings.tmp\(round)"
            try tree.writeFile(temporary, byteCount: size)
            try tree.rename(temporary, to: root / "config" / "settings")
        }
        try fixture.expectLiveMatchesScan("after replacing by rename", du: true)

        for index in stride(from: 1, to: 20, by: 2) { try tree.unlinkEntry(root / "config" / "old-\(index)") }
        try tree.unlinkEntry(root / "config" / "settings")
        try fixture.expectLiveMatchesScan("after unlinking everything", du: true)
        try fixture.stopCleanly()
    }

    @Test("a file that a thread keeps appending to, synced again and again")
    func continuousWriter() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "logs")
        try tree.makeEmptyFile(root / "logs" / "growing.log")
        try fixture.start()

        let writer = AppendingWriter(descriptor: try tree.openForAppending(root / "logs" / "growing.log"))
        defer { writer.finish() }
        writer.start()
        for round in 1...6 {
            try writer.pause(afterWrites: 40 * round)
            try fixture.expectLiveMatchesScan("round \(round), \(writer.writeCount) writes", du: round == 6)
            writer.resume()
        }
        writer.finish()
        try fixture.expectLiveMatchesScan("after the writer closed its file")
        try fixture.stopCleanly()
    }
}
