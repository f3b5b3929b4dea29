import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// What anyone who can write in the tree, or signal the daemon, can throw at it: file times
/// past 2262 and before 1677, sparse files of 2⁶³ − 1 bytes, a storm of SIGHUPs. `scan` and the
/// daemon must agree with du, and the daemon must live and answer.
@Suite("hostile input to scan and the daemon")
struct HostileInputLiveTests {
    private let root = LiveFixture.root

    /// tmpfs keeps 64-bit seconds and files up to 2⁶³ − 1 bytes; /tmp here may be ext4, whose
    /// files stop at 16 TiB.
    static let tmpfs = "/dev/shm"
    static var hasTmpfs: Bool {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        return mounts.split(separator: "\n").contains {
            $0.split(separator: " ").dropFirst().prefix(2) == [Substring(tmpfs), "tmpfs"]
        }
    }

    /// Sets a name's access and modification times to `seconds` since the epoch.
    private func setTimes(_ tree: TempTree, _ path: TreePath, seconds: Int) throws {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        let result = utimensat(AT_FDCWD, tree.absolutePath(path), &times, AT_SYMLINK_NOFOLLOW)
        try #require(result == 0, "utimensat \(seconds) on \(path): errno \(errno)")
    }

    /// The largest sparse file the tests make: tmpfs takes up to 2⁶³ − 1 bytes, and the test
    /// harness reads du's and QuotaWatch's totals as Int64, so the whole root must stay below
    /// that (every other name here is small).
    private static let hugeSize = Int.max - (1 << 20)

    /// Files at the ends of time under `directory`, and a sparse file of ``hugeSize``.
    private func makeExtremeFiles(_ tree: TempTree, in directory: TreePath) throws {
        try tree.makeDirectory(directory)
        try tree.writeFile(directory / "future", byteCount: 100)
        try setTimes(tree, directory / "future", seconds: 9_223_372_037)
        try tree.writeFile(directory / "past", byteCount: 5000)
        try setTimes(tree, directory / "past", seconds: -9_223_372_037)
        try tree.makeDirectory(directory / "far")
        try setTimes(tree, directory / "far", seconds: 9_223_372_036_854)
        try tree.makeSparseFile(directory / "far" / "sparse", size: Self.hugeSize, dataOffsets: [0, 1 << 40])
        try setTimes(tree, directory / "far" / "sparse", seconds: 9_223_372_037)
    }

    @Test(
        "times past 2262 and before 1677 and 2⁶³-byte sparse files: scan matches du, the daemon lives and stays exact",
        .enabled(if: hasTmpfs, "needs a tmpfs at /dev/shm (2⁶³-byte sparse files, 64-bit times)"))
    func extremeFiles() throws {
        let fixture = try LiveFixture(in: Self.tmpfs)
        let tree = fixture.tree
        try makeExtremeFiles(tree, in: root / "before")
        try tree.writeFile(
            "outside/config.yaml",
            contents: Array("quotas:\n  - {path: 'before', limit: 1MB, size: apparent}\n".utf8))

        let (scanResult, scan) = try fixture.cli.scanJSON(root: fixture.rootPath)
        #expect(scanResult.exitStatus == 0, "\(scanResult)")
        let expectation = try ScanExpectation.measure(tree, root: root)
        if let scan {
            let problems = expectation.mismatches(in: scan)
            #expect(problems.isEmpty, "scan differs from du:\n\(problems.joined(separator: "\n"))")
        } else {
            Issue.record("scan printed no report\n\(scanResult)")
        }

        // The crawl at start sees the first set; the second arrives as events (the first huge
        // file goes, so the root stays below 2⁶³), and a quota's apparent size jumps by 2⁶²
        // in one write (a growth rate of ~10²¹ B/s).
        let daemon = try fixture.start(options: ["--config", tree.absolutePath("outside/config.yaml")])
        try daemon.waitForEvent("quota_breach", path: "before")
        try tree.unlinkEntry(root / "before" / "far" / "sparse")
        try makeExtremeFiles(tree, in: root / "after")
        try fixture.expectLiveMatchesScan("extreme times and sizes, live", du: true)
        try tree.unlinkEntry(root / "after" / "far" / "sparse")
        try tree.makeSparseFile(root / "before" / "more", size: 1 << 62)
        try fixture.expectLiveMatchesScan("a quota directory growing by 2⁶² B", du: true)
        #expect(try daemon.status(sync: true).report.directories.isEmpty == false)
        try fixture.stopCleanly()
    }

    @Test("a storm of SIGHUPs with writes is coalesced into a few reloads; status answers and totals stay exact")
    func hangupStorm() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "Caches")
        let config: TreePath = "outside/config.yaml"
        try tree.writeFile(config, contents: Array("quotas:\n  - {path: 'Caches', limit: 10MB}\n".utf8))
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(config)])

        // 750 signals, one every 2 ms, with a file written every tenth.
        // The bound on reloads follows from the storm as it was sent, not from how fast the
        // daemon is: a reload at most once a second while signals keep coming, and one after
        // every pause in them long enough to settle (a loaded machine makes such pauses).
        let storm = 750
        let clock = ContinuousClock()
        let started = clock.now
        var previous = started
        var pauses = 0
        for index in 0..<storm {
            daemon.send(SIGHUP)
            if clock.now - previous >= EngineScheduleBounds.settle / 2 { pauses += 1 }
            previous = clock.now
            if index % 10 == 0 { try tree.writeFile(root / "Caches" / "f\(index)", byteCount: 1000 + index) }
            usleep(2000)  // paces the storm; nothing waits on it
        }
        let seconds = Int((clock.now - started).components.seconds) + 1
        let allowed = seconds + pauses + 3
        let status = try daemon.status(sync: true)
        #expect(status.report.directories.isEmpty == false)
        try fixture.expectLiveMatchesScan("after the SIGHUP storm", du: true)
        // One more SIGHUP with a new limit is applied: the coalesced reloads lose nothing.
        try tree.writeFile("outside/staged.yaml", contents: Array("quotas:\n  - {path: 'Caches', limit: 20kB}\n".utf8))
        try tree.rename("outside/staged.yaml", to: config)
        daemon.send(SIGHUP)
        try daemon.waitForEvent("quota_breach", path: "Caches")
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
        let reloads = exit.events.filter { $0.event == "config_reloaded" }.count
        // Before coalescing, every signal was one (727 of 750).
        #expect(
            (1...allowed).contains(reloads),
            "\(reloads) config_reloaded events for \(storm) SIGHUPs over \(seconds) s with \(pauses) pauses")
    }

    @Test(
        "SIGHUP with the config replaced by a FIFO, a directory or a deep nest: config_error naming it, old rules kept")
    func hostileReloads() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "Caches")
        let config: TreePath = "outside/config.yaml"
        try tree.writeFile(config, contents: Array("quotas:\n  - {path: 'Caches', limit: 20kB}\n".utf8))
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(config)])
        let replacements: [(make: (TreePath) throws -> Void, message: String)] = [
            ({ try tree.makeFIFO($0) }, "a FIFO (named pipe), not a regular file"),
            ({ try tree.makeDirectory($0) }, "a directory, not a regular file"),
            (
                {
                    try tree.writeFile(
                        $0, contents: Array(("quotas: " + String(repeating: "[", count: 40_000)).utf8))
                }, "nested more than 64 deep"
            ),
        ]
        for (index, replacement) in replacements.enumerated() {
            let staged = LiveFixture.outside / "staged\(index)"
            try replacement.make(staged)
            try tree.rename(staged, to: config)
            daemon.send(SIGHUP)
            let error = try daemon.waitForEvent("config_error", description: replacement.message) {
                $0.message?.contains(replacement.message) == true
            }
            #expect(error.message?.contains("config.yaml") == true, "\(error)")
            // Answered at once, and the old rules are still in force.
            #expect(try daemon.quotas().row("Caches").limit == 20_000)
            if index < replacements.count - 1 { try tree.removeSubtree(config) }
        }
        try tree.writeFile(root / "Caches" / "big", byteCount: 30_000)
        try daemon.waitForEvent("quota_breach", path: "Caches")
        try fixture.stopCleanly()
    }
}

/// The daemon's SIGHUP settle period (EngineSchedule.reloadSettle), as the storm test needs it.
private enum EngineScheduleBounds {
    static let settle: Duration = .milliseconds(100)
}
