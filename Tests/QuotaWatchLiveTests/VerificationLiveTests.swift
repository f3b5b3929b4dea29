import Foundation
import QuotaWatchTestSupport
import Testing

/// The background verification sweep against the real daemon: what no event reports is
/// counted exactly within one sweep, with no `--sync`, and `status --json` and the log say so.
@Suite("verification sweep, live")
struct VerificationLiveTests {
    private let root = LiveFixture.root

    private struct Verification: Decodable {
        struct Engine: Decodable { let verification: Report? }
        struct Report: Decodable {
            let passes: UInt64
            let checked: UInt64
            let corrections: [String: UInt64]
        }
        let engine: Engine
    }

    @Test(
        "a file written through a shared mapping and never closed is counted exactly within one sweep, without --sync",
        .enabled(if: DocumentedLimitTests.python != nil, "needs python3 to write through a mapping"))
    func mappedWriteIsFound() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        // Past the late re-stats the daemon gives a recently written file, which would also
        // catch the stores: what is left to find them is the sweep.
        let writer = try DocumentedLimitTests.mapSparseFile(in: tree)
        let daemon = try fixture.start(options: ["--verify-every", "1s", "--verify-budget", "100%"])
        try fixture.expectLiveMatchesScan("mapped, nothing written yet", du: true)

        try writer.send(expecting: "written")
        // No event comes for the stores; the sweep's log line is the one thing to wait on.
        try daemon.waitForStandardError(containing: "verification sweep corrected 'm/sparse'")
        let status = try daemon.status(sync: false)
        let du = try #require(try ScanExpectation.measure(tree, root: root).du.sizes["m"], "du of m")
        let live = try #require(status.report.directoriesByPath["m"], "m in status")
        #expect(live.allocated == du.allocated, "status without --sync: \(live.allocated), du: \(du.allocated)")
        #expect(live.apparent == du.apparent)
        let verification = try #require(
            try JSONDecoder().decode(Verification.self, from: Data(status.json)).engine.verification,
            "status --json has no verification object")
        #expect(
            (verification.corrections["allocation"] ?? 0) + (verification.corrections["size"] ?? 0) >= 1,
            "\(verification.corrections)")
        #expect(verification.checked > 0)

        try writer.send(expecting: "closed")
        try writer.send()
        try fixture.expectLiveMatchesScan("after the mapping's close", du: true)
        try fixture.stopCleanly()
    }

    @Test("--verify-every 0 turns the sweep off: status --json has no verification object")
    func off() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectory(root / "d")
        let daemon = try fixture.start(options: ["--verify-every", "0"])
        let status = try daemon.status(sync: false)
        #expect(try JSONDecoder().decode(Verification.self, from: Data(status.json)).engine.verification == nil)
        try fixture.stopCleanly()
    }

    @Test("a bad --verify-budget names the value and the way out")
    func badBudget() throws {
        let fixture = try LiveFixture()
        let result = try fixture.cli.run(["run", fixture.rootPath, "--verify-budget", "200%"])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("--verify-budget"), "\(result.errorText)")
        #expect(result.errorText.contains("200%"), "\(result.errorText)")
    }
}
