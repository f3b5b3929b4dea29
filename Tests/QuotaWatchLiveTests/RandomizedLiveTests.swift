import Foundation
import QuotaWatchTestSupport
import Testing

/// Thousands of mixed real operations from a seed against the real daemon, in phases issued
/// back to back (the daemon falls behind) and phases paced by `status --sync` barriers (the
/// daemon catches up). Every few hundred operations, and at the end, `status --sync --json`
/// must equal a fresh scan for every directory; at the end also du for every directory.
///
/// QUOTAWATCH_TEST_SEED (decimal or 0x-hex, comma-separated) adds seeds, to reproduce or
/// explore; QUOTAWATCH_TEST_SEED_ONLY=1 runs only those; QUOTAWATCH_TEST_STEPS sets the
/// number of operations per seed. `scripts/sweep` runs many seeds this way.
///
/// QUOTAWATCH_TEST_MOVES_DURING_CRAWL=1 makes a bulk of subtrees for the first crawl to spend
/// its time on and, once the daemon is started, issues operations that race a crawl
/// (directory moves, renames over, atomic replacements; RandomOperations+Crawl.swift) from the
/// moment it says it is watching (its backend started, the crawl about to begin) before
/// waiting for `ready`: how many of them came before it is printed. QUOTAWATCH_CPU_LOAD=N
/// spins N busy threads beside the test for its whole length.
@Suite("live tallies under random operations")
struct RandomizedLiveTests {
    // Seed 5 failed against the daemon without the fix for renames over fresh leaves.
    static let seeds = TestSeeds.seeds([5, 0x5EED, 0xDEC0_DE])
    static let steps = TestSeeds.steps(standard: 750)
    static let checkpointEvery = 250

    @Test("random operations, back to back and paced, checked every 250", arguments: seeds)
    func randomOperations(seed: UInt64) throws {
        let setting = RandomSetting(seed: seed)
        let fixture = try LiveFixture(as: setting.user, in: setting.base)
        var operations = try RandomOperations(
            tree: fixture.tree, root: LiveFixture.root, outside: LiveFixture.outside, seed: seed)
        let load = CPULoad.requested > 0 ? CPULoad(threads: CPULoad.requested) : nil
        defer { load?.stop() }
        for _ in 0..<40 { try operations.step() }
        var bulk = Self.movesDuringCrawl ? try operations.makeBulk(subtrees: Self.bulkSubtrees) : []
        // Written back before the first crawl stats them (see TempTree.writeBack).
        fixture.tree.writeBack()
        let withMounts = Self.mountsAvailable(fixture)
        let wrapper = withMounts ? MountNamespace.wrapper(root: fixture.rootPath) : []
        let daemon: Daemon
        if Self.movesDuringCrawl {
            daemon = try fixture.launch(wrapper: wrapper)
            // Logged as the backend has started, just before the first crawl begins.
            try daemon.waitForStandardError(containing: "watching ")
            var beforeReady = 0
            for done in 1...Self.crawlOperations {
                do {
                    try operations.crawlRaceStep(bulk: &bulk)
                } catch {
                    Issue.record("\(TestSeeds.describe(seed)): operation \(done) during the crawl failed: \(error)")
                    throw error
                }
                if daemon.events("ready").isEmpty { beforeReady += 1 }
            }
            _ = try daemon.waitForEvent("ready", timeout: .seconds(120))
            print(
                "\(TestSeeds.describe(seed)): \(beforeReady) of \(Self.crawlOperations) operations were done "
                    + "before ready (\(load?.threads ?? 0) busy threads)")
        } else {
            daemon = try fixture.start(wrapper: wrapper)
        }
        operations.catchUp = { _ = try daemon.syncStatus() }
        if withMounts { operations.mounts = MountOperations(processID: daemon.processID) }
        var pacing = Pacing(seed: seed)

        for done in 1...Self.steps {
            func context() -> String {
                "\(TestSeeds.describe(seed)) (\(setting)\(Self.modeDescription)), \(Self.steps) steps, "
                    + "after \(done) operations; "
                    + "\(operations.summary)\n"
                    + "last operations:\n" + operations.recent.joined(separator: "\n")
            }
            do {
                try operations.step()
            } catch {
                Issue.record("\(context())\noperation \(done) failed: \(error)")
                throw error
            }
            let barrier = pacing.barrierAfterStep()
            let last = done == Self.steps
            let checkpoint = done % Self.checkpointEvery == 0 || last
            // Every write is written back at once (RandomOperations), this only for certainty.
            if checkpoint { fixture.tree.writeBack() }
            if barrier { _ = try daemon.syncStatus() }
            // find and du, behind the du check, stop with an error at a mount cycle or a bind
            // mount of a directory removed since.
            if last { try operations.unmountUnreadable() }
            if checkpoint {
                let problems = try Self.checkpoint(
                    fixture, du: last, directories: operations.directories, mounts: operations.mounts)
                guard problems.isEmpty else {
                    Issue.record("\(context())\n\(problems.joined(separator: "\n"))")
                    return
                }
            }
        }
        try fixture.stopCleanly()
    }

    /// QUOTAWATCH_TEST_MOVES_DURING_CRAWL=1: operations race the first crawl.
    static let movesDuringCrawl = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_MOVES_DURING_CRAWL"] == "1"
    /// Bulk subtrees of 85 directories each, so that the crawl lasts while they are moved.
    static let bulkSubtrees = 24
    static let crawlOperations = 60

    static var modeDescription: String {
        (movesDuringCrawl ? ", moves during the first crawl" : "")
            + (CPULoad.requested > 0 ? ", \(CPULoad.requested) busy threads" : "")
            + ", backend \(DaemonBackend.requested)"
    }

    /// The daemon runs in a private mount namespace of its own when mounts can be made there
    /// (the mount operations need one) and it runs as this user (the namespace's scan and du
    /// run as root); otherwise they are left out, and the test says why.
    static func mountsAvailable(_ fixture: LiveFixture) -> Bool {
        if let reason = MountOperations.unavailableReason {
            print("random operations without mounts: \(reason)")
            return false
        }
        if let user = fixture.user {
            print("random operations without mounts: the daemon runs as \(user)")
            return false
        }
        return true
    }

    /// `status --sync --json` against a fresh scan (and du) for every directory, one watch
    /// per directory, nothing degraded; every difference found, one per line. With `mounts`,
    /// the scan, find and du see the tree as the daemon's mount namespace shows it.
    static func checkpoint(
        _ fixture: LiveFixture, du: Bool, directories: [TreePath], mounts: MountOperations? = nil
    ) throws -> [String] {
        let status = try fixture.running.syncStatus()
        let scan: ScanReport
        if mounts != nil {
            scan = try MountNamespace.scan(fixture, fixture.running, warnings: true)
        } else {
            let (scanResult, report) = try fixture.cli.scanJSON(root: fixture.rootPath, as: fixture.user)
            // As an ordinary user, directories without search permission make the scan exit 1.
            let scanned = scanResult.exitStatus == 0 || (fixture.user != nil && scanResult.exitStatus == 1)
            guard scanned, let report else { return ["the reference scan failed\n\(scanResult)"] }
            scan = report
        }
        var problems = ReportComparison.differences(live: status.report, scan: scan)
        if let top = scan.directoriesByPath["."] {
            // A directory at two places is one watch.
            let shared = mounts?.sharesDirectories ?? false
            if shared ? status.engine.watches > top.dirs + 1 : status.engine.watches != top.dirs + 1 {
                problems.append("\(status.engine.watches) watches for \(top.dirs + 1) directories")
            }
        }
        if !status.engine.degraded.isEmpty { problems.append("degraded: \(status.engine.degraded)") }
        if du {
            let expectation: ScanExpectation
            if mounts != nil {
                let seen = MountNamespace.view(of: fixture, try fixture.running)
                let census = try TreeCensus.take(of: seen, root: LiveFixture.root)
                let measured = try DuOracle.measure(seen, root: LiveFixture.root, directories: census.directories)
                expectation = ScanExpectation(rootPath: fixture.rootPath, census: census, du: measured)
            } else {
                expectation = try ScanExpectation.measure(fixture.tree, root: LiveFixture.root, as: fixture.user)
            }
            problems += expectation.mismatches(in: status.report).map { "du: \($0)" }
        }
        guard !problems.isEmpty else { return [] }
        // Whether the drift lasts tells a lost watch or record from a late event.
        let again = try fixture.running.syncStatus()
        let lasting = !ReportComparison.differences(live: again.report, scan: scan).isEmpty
        return ["status --sync differs (\(lasting ? "still after a second sync" : "healed by a second sync")):"]
            + problems + ["engine: \(status.engine)"]
            + (try listDeepestDifferences(fixture, live: status.report, scan: scan, directories: directories))
    }

    /// `ls -lais` of the deepest directories whose totals differ, with the outside files, to
    /// tell which entry the daemon miscounts.
    static func listDeepestDifferences(
        _ fixture: LiveFixture, live: ScanReport, scan: ScanReport, directories: [TreePath]
    ) throws -> [String] {
        let liveRows = live.directoriesByPath
        let differing = Set(scan.directories.filter { liveRows[$0.path] != $0 }.map(\.path))
        let byReportPath = Dictionary(
            directories.compactMap { path in path.relative(to: LiveFixture.root).map { ($0.reportPath, path) } },
            uniquingKeysWith: { first, _ in first })
        let deepest = differing.compactMap { byReportPath[$0] }.sorted { $0.depth > $1.depth }.prefix(3)
        return try (Array(deepest) + [LiveFixture.outside]).map { directory in
            let listing = try fixture.tree.withDirectory(directory) { descriptor in
                try ProcessRunner.run("ls", ["-laisb", "--block-size=1", "."], workingDirectory: descriptor)
            }
            return "ls -lais \(directory.reportPath):\n" + String(decoding: listing.standardOutput, as: UTF8.self)
        }
    }
}

/// When the test waits for the daemon: phases of 20 to 200 operations, each either issued
/// back to back or with a `status --sync` barrier after every 1 to 8 of them. Drawn from its
/// own generator, so the operations of a seed stay the same whatever the pacing.
struct Pacing {
    private var generator: SeededGenerator
    private var left = 0
    private var barrierEvery = 0
    private var sinceBarrier = 0

    init(seed: UInt64) { generator = SeededGenerator(seed: seed ^ 0x5041_4345) }

    mutating func barrierAfterStep() -> Bool {
        if left == 0 {
            left = Int.random(in: 20...200, using: &generator)
            barrierEvery = Bool.random(using: &generator) ? 0 : Int.random(in: 1...8, using: &generator)
            sinceBarrier = 0
        }
        left -= 1
        guard barrierEvery > 0 else { return false }
        sinceBarrier += 1
        guard sinceBarrier == barrierEvery else { return false }
        sinceBarrier = 0
        return true
    }
}

/// Who runs the daemon and where the tree lies, from two bits of a hash of the seed, so that
/// a sweep covers all four: as nobody (where this process may switch to it) the daemon, its
/// scans and du find directories without search permission counted alone; on tmpfs (where
/// one is writable) directories grow 20 B per entry. Seed 5 keeps this user and $TMPDIR.
struct RandomSetting: CustomStringConvertible {
    let user: UserIdentity?
    let base: String?

    init(seed: UInt64) {
        let bits = (seed &* 0x9E37_79B9_7F4A_7C15) >> 62
        user = bits & 1 == 1 && UnprivilegedExecution.isAvailable ? .nobody : nil
        base = bits & 2 == 2 ? ScratchTmpfs.directory : nil
    }

    var description: String {
        "daemon as \(user.map { "\($0)" } ?? "this user"), tree on \(base ?? "$TMPDIR")"
    }
}
