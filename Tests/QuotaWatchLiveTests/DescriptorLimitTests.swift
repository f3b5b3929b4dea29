import Glibc
import QuotaWatchTestSupport
import Testing

/// The daemon under a low RLIMIT_NOFILE: running out of descriptors while it crawls new
/// directories must never leave a wrong total reported as exact.
@Suite("live tallies under a low descriptor limit")
struct DescriptorLimitTests {
    private let root = LiveFixture.root

    /// Lowers soft and hard RLIMIT_NOFILE to `limit` (so the daemon cannot raise it back),
    /// then becomes the daemon (`$0` is its binary).
    static func wrapper(limit: Int) -> [String] {
        ["sh", "-c", "ulimit -n \(limit) && exec \"$0\" \"$@\""]
    }

    @Test(
        "many new directories under a low limit: status --sync is exact, or degraded with the limit named",
        arguments: [40, 24])
    func manyNewDirectories(limit: Int) throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(root / "seed", byteCount: 4_000)
        let daemon = try fixture.start(wrapper: Self.wrapper(limit: limit))

        for top in 0..<40 {
            for inner in 0..<3 {
                let directory = root / "n\(top)" / "m\(inner)" / "deep"
                try tree.makeDirectories(directory)
                try tree.writeFile(directory / "file", byteCount: 1_000 * (top + inner + 1))
                try tree.writeFile(root / "n\(top)" / "m\(inner)" / "file", byteCount: 5_000)
            }
            try tree.writeFile(root / "n\(top)" / "top-file", byteCount: 7_000)
        }
        try expectExactOrFlagged(fixture, daemon, "right after 40 new directory trees")

        // Descriptors free up again as the crawls end: polling (and each sync) re-lists what
        // could not be listed, so the totals become exact again.
        var recovered = false
        for _ in 0..<30 {
            let status = try daemon.syncStatus()
            if status.engine.degraded.isEmpty {
                recovered = true
                break
            }
            try daemon.waitForEvent("degraded", count: 1)
        }
        if recovered {
            try fixture.expectLiveMatchesScan("once descriptors are free again", du: true)
        }
        try fixture.stopCleanly()
    }

    /// Either every directory matches du, or the status says which subtrees are degraded and
    /// stderr names the descriptor limit and how to raise it.
    private func expectExactOrFlagged(_ fixture: LiveFixture, _ daemon: Daemon, _ context: String) throws {
        let status = try daemon.syncStatus()
        let expectation = try ScanExpectation.measure(fixture.tree, root: root)
        let problems = expectation.mismatches(in: status.report)
        if status.engine.degraded.isEmpty {
            #expect(
                problems.isEmpty, "\(context): wrong totals reported as exact:\n\(problems.joined(separator: "\n"))")
        } else {
            try daemon.waitForStandardError(containing: "LimitNOFILE")
            #expect(daemon.errorText.contains("out of file descriptors"), "\(daemon.errorText)")
            let degraded = daemon.events("degraded")
            #expect(!degraded.isEmpty, "no degraded event for \(status.engine.degraded)")
        }
    }
}
