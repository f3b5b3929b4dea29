import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// One test's world: a temp tree holding the watched root (`root/`), a sibling directory on
/// the same file system (`outside/`), and the daemon's socket (`run/control.sock`).
///
/// Everything a test builds goes through `tree` with paths like `LiveFixture.root / "a"`.
final class LiveFixture {
    static let root: TreePath = "root"
    static let outside: TreePath = "outside"

    let tree: TempTree
    let cli: CLIRunner
    /// Who runs the daemon, its status requests and the reference scans; nil for this process.
    let user: UserIdentity?
    let socketPath: String
    private(set) var daemon: Daemon?
    /// Holds a copy of the binary that `user` can execute, when the build directory is not
    /// reachable by them.
    private let staging: TempTree?

    /// - Parameter base: where the temp tree goes (another file system, say); else $TMPDIR.
    init(as user: UserIdentity? = nil, in base: String? = nil) throws {
        tree = try TempTree(prefix: "qw-live", in: base)
        self.user = user
        try tree.makeDirectory(Self.root)
        try tree.makeDirectory(Self.outside)
        try tree.makeDirectory("run", mode: 0o700)
        socketPath = tree.absolutePath("run/control.sock")
        let located = try CLIRunner.locate()
        if let user {
            try tree.setMode(.root, 0o755)
            for path: TreePath in [Self.root, Self.outside, "run"] { try tree.setOwner(path, user) }
            let staging = try TempTree(prefix: "qw-live-binary")
            cli = try located.executable(by: user, stagingIn: staging)
            self.staging = staging
        } else {
            cli = located
            staging = nil
        }
    }

    deinit {
        // Killed before the tree goes, so it never sees its root vanish.
        daemon = nil
    }

    var rootPath: String { tree.absolutePath(Self.root) }

    /// Starts the daemon on the root (and its sibling roots, unless `alone` says why not:
    /// ``SiblingRoots``) and waits until it is ready.
    @discardableResult
    func start(options: [String] = [], wrapper: [String] = [], alone: String? = nil) throws -> Daemon {
        let started = try Daemon.start(
            cli, root: rootPath, socket: socketPath, options: options, as: user, wrapper: wrapper, alone: alone)
        daemon = started
        return started
    }

    /// Starts the daemon on the root without waiting for anything: a test that races the
    /// first crawl waits for `ready` itself.
    @discardableResult
    func launch(options: [String] = [], wrapper: [String] = [], alone: String? = nil) throws -> Daemon {
        let started = try Daemon.launch(
            cli, root: rootPath, socket: socketPath, options: options, as: user, wrapper: wrapper, alone: alone)
        daemon = started
        return started
    }

    var running: Daemon {
        get throws {
            guard let daemon else { throw DaemonError("the test has not started a daemon") }
            return daemon
        }
    }

    /// `status --sync --json`, then a fresh `scan --json` of the root; records an issue for every
    /// directory whose allocated, apparent, files or dirs differ, and, with `du`, for every
    /// directory where either differs from du and find. Then the same of each sibling root,
    /// after a little churn in it, and that no event crossed between roots (``expectSiblingsExact``).
    ///
    /// - Parameters:
    ///   - scanExitStatus: 1 where some directory cannot be read.
    ///   - watchPerDirectory: also expect one watch per directory (not where some directory
    ///     cannot be read or watched).
    /// - Returns: the daemon's status, for checks of its engine counters.
    @discardableResult
    func expectLiveMatchesScan(
        _ context: String, du: Bool = false, scanExitStatus: CInt = 0, watchPerDirectory: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LiveStatus {
        let daemon = try running
        let status = try daemon.syncStatus()
        let (scanResult, scan) = try cli.scanJSON(root: rootPath, as: user)
        #expect(
            scanResult.exitStatus == scanExitStatus, "\(context): the reference scan failed\n\(scanResult)",
            sourceLocation: sourceLocation)
        guard let scan else {
            Issue.record(
                "\(context): the reference scan printed no report\n\(scanResult)", sourceLocation: sourceLocation)
            return status
        }
        let differences = ReportComparison.differences(live: status.report, scan: scan)
        #expect(
            differences.isEmpty,
            "\(context): status --sync differs from scan:\n\(differences.joined(separator: "\n"))\nengine: \(status.engine)",
            sourceLocation: sourceLocation)
        if watchPerDirectory, let top = scan.directoriesByPath["."] {
            #expect(
                status.engine.watches == top.dirs + 1,
                "\(context): \(status.engine.watches) watches for \(top.dirs + 1) directories",
                sourceLocation: sourceLocation)
            #expect(status.engine.degraded.isEmpty, "\(context): degraded \(status.engine.degraded)")
        }
        if du {
            let expectation = try ScanExpectation.measure(tree, root: Self.root, as: user)
            let problems = expectation.mismatches(in: status.report)
            #expect(
                problems.isEmpty,
                "\(context): status --sync differs from du/find:\n\(problems.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        }
        try expectSiblingsExact(context, sourceLocation: sourceLocation)
        return status
    }

    /// Records an issue for every way a sibling root of the daemon is not exact (its tally
    /// against a fresh scan, after a little churn) or not isolated (an event crossed roots).
    func expectSiblingsExact(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let daemon = try running
        let problems = try daemon.siblingProblems()
        #expect(
            problems.isEmpty, "\(context): \(problems.joined(separator: "\n"))\n\(daemon.transcript)",
            sourceLocation: sourceLocation)
    }

    /// Stops the daemon with SIGTERM and expects a clean exit: status 0, no error message; its
    /// sibling roots exact up to then.
    func stopCleanly(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectSiblingsExact("before stopping", sourceLocation: sourceLocation)
        let exit = try running.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "the daemon did not exit cleanly\n\(exit)", sourceLocation: sourceLocation)
        #expect(
            !exit.errorText.contains("error"), "the daemon reported an error\n\(exit)", sourceLocation: sourceLocation)
    }
}

/// Seeds for the randomized tests: a fixed list, plus the seeds of QUOTAWATCH_TEST_SEED
/// (decimal or 0x-hex, comma-separated) when it is set, to reproduce or explore. With
/// QUOTAWATCH_TEST_SEED_ONLY=1 only those run, as a sweep of many seeds wants.
enum TestSeeds {
    static func seeds(_ fixed: [UInt64]) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        let given = (environment["QUOTAWATCH_TEST_SEED"] ?? "").split(separator: ",").compactMap { part in
            let text = part.trimmingCharacters(in: .whitespaces)
            return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        }
        if environment["QUOTAWATCH_TEST_SEED_ONLY"] == "1" && !given.isEmpty { return given }
        return fixed + given
    }

    /// QUOTAWATCH_TEST_STEPS when it is a positive number, else `standard`.
    static func steps(standard: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_STEPS"], let steps = Int(text), steps > 0
        else { return standard }
        return steps
    }

    static func describe(_ seed: UInt64) -> String {
        "seed 0x\(String(seed, radix: 16)) (rerun with QUOTAWATCH_TEST_SEED=0x\(String(seed, radix: 16)))"
    }
}
