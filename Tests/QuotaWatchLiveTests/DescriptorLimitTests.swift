import Dispatch
import Foundation
import Glibc
import QuotaWatchTestSupport
import Synchronization
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

    /// The limits are counted for the descriptors of a process serving one root: with the
    /// sibling roots and their history, 40 leaves one descriptor free for good. (With siblings
    /// at 40 and no history, a sync out of descriptors lost a subtree, and a file made while
    /// none was free was missing from totals called exact: both fixed, SyncOutOfDescriptorsTests.)
    static let counted = "the descriptor limits are counted for a process serving one root"

    @Test(
        "many new directories under a low limit: status --sync is exact, or degraded with the limit named",
        arguments: [40, 24])
    func manyNewDirectories(limit: Int) throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(root / "seed", byteCount: 4_000)
        let daemon = try fixture.start(wrapper: Self.wrapper(limit: limit), alone: Self.counted)

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

        // Descriptors free up again as the crawls end, and each sync re-lists what could not
        // be listed (polling does too): the totals become exact again, and must.
        var recovered = false
        for _ in 0..<10 {
            if try daemon.syncStatus().engine.degraded.isEmpty {
                recovered = true
                break
            }
        }
        #expect(recovered, "still degraded after 10 syncs:\n\(daemon.errorText)")
        try fixture.expectLiveMatchesScan("once descriptors are free again", du: true)
        try fixture.stopCleanly()
    }

    @Test(
        "every descriptor held by idle subscribers: status and status --sync are still answered, in a row and at once",
        arguments: [24, 40])
    func controlWithNoDescriptorFree(limit: Int) throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "seed", byteCount: 4_000)
        // No history: its database opens files now and then, and the count below must hold.
        let daemon = try fixture.start(
            options: ["--no-history"], wrapper: Self.wrapper(limit: limit), alone: Self.counted)
        _ = try daemon.syncStatus()

        // Subscribers, each answered with its first line, take every free descriptor.
        let free = limit - (try Self.openDescriptors(of: daemon.processID))
        try #require(free >= 1 && free < 32, "\(free) descriptors free under a limit of \(limit)")
        var subscribers: [RawSocket] = []
        for _ in 0..<free {
            let subscriber = try RawSocket.unix(fixture.socketPath)
            try subscriber.send(Array(#"{"command":"events"}"#.utf8) + [0x0A])
            let greeting = String(decoding: try subscriber.receiveLine().line, as: UTF8.self)
            #expect(greeting.contains(#""event":"subscribed""#), "\(greeting)")
            subscribers.append(subscriber)
        }
        defer { for subscriber in subscribers { subscriber.close() } }
        #expect(try Self.openDescriptors(of: daemon.processID) == limit)

        for round in 0..<6 {
            let status = try daemon.status(sync: round % 2 == 0, timeoutSeconds: 20)
            #expect(!status.report.directories.isEmpty, "round \(round): no directory in the status")
        }
        let answered = Mutex(0)
        let failures = Mutex<[String]>([])
        let cli = fixture.cli
        let command = ["status", daemon.root, "--socket", daemon.socketPath, "--json", "--timeout", "20"]
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            do {
                let result = try cli.run(command + (index % 2 == 0 ? ["--sync"] : []))
                guard result.exitStatus == 0 else {
                    failures.withLock { $0.append("\(result)") }
                    return
                }
                answered.withLock { $0 += 1 }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(answered.withLock { $0 } == 6, "\(failures.withLock { $0 })")
        try daemon.waitForStandardError(containing: "LimitNOFILE")
        #expect(daemon.errorText.contains("descriptor kept in reserve"), "\(daemon.errorText)")
        try fixture.stopCleanly()
    }

    @Test(
        "a limit too low to start: the daemon exits at once, naming the limit and LimitNOFILE",
        arguments: [8, 12, 16])
    func tooLowToStart(limit: Int) throws {
        let fixture = try LiveFixture()
        let daemon = try Daemon.launch(
            fixture.cli, root: fixture.rootPath, socket: fixture.socketPath, wrapper: Self.wrapper(limit: limit),
            alone: Self.counted)
        let exit = try daemon.waitForExit(timeout: .seconds(60))
        #expect(exit.exitStatus == 71 || exit.exitStatus == 69, "\(exit)")
        #expect(exit.errorText.contains("the limit on open files is \(limit)"), "\(exit)")
        #expect(exit.errorText.contains("LimitNOFILE="), "\(exit)")
        #expect(!exit.events.contains { $0.event == "ready" }, "\(exit)")
    }

    private static func openDescriptors(of processID: pid_t) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(processID)/fd").count
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
