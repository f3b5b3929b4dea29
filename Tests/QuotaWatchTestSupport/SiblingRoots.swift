import Foundation
import Glibc

/// Roots a test's daemon serves beside the test's own, to prove that each root of a daemon
/// behaves as its own (issue 31): `run ROOT --socket S SIBLING --socket S1 …`.
///
/// Each sibling is a temp tree of its own holding `home/` (the root: a few files below
/// ``namespace``, a name no test uses) and `run/` (its socket). Its last component is not
/// the test's `root`, so its state directory (`home-HASH`) is told apart from the test's. Its events are kept apart
/// from the test's (``owns(_:)``), and ``problems(daemon:)`` says where a sibling stopped
/// being exact or isolated: a tally that differs from a fresh scan, an event of the test's
/// root attributed to a sibling or one of a sibling's to the test's root, a file of a sibling
/// gone or added by anything but the harness (another root's cleaner reaching into it).
///
/// `QUOTAWATCH_TEST_EXTRA_ROOTS` sets how many (default 2; 0 turns the mode off, to bisect).
public final class SiblingRoots {
    /// The one top-level name of every sibling's contents: any path a sibling's event names
    /// starts with it, and none of the test root's does.
    public static let namespace = "sibling-notes"

    public struct Sibling {
        public let tree: TempTree
        /// Absolute, with symlinks resolved: as the daemon names it in the `root` of its events.
        public let rootPath: String
        public let socketPath: String
    }

    public let members: [Sibling]
    private let user: UserIdentity?
    private var churnRound = 0

    /// How many siblings every test daemon gets: `QUOTAWATCH_TEST_EXTRA_ROOTS`, else 2.
    public static var requestedCount: Int {
        guard let text = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_EXTRA_ROOTS"], !text.isEmpty else {
            return 2
        }
        guard let count = Int(text), (0...16).contains(count) else {
            fatalError(
                "QUOTAWATCH_TEST_EXTRA_ROOTS=\(text) is not a number of sibling roots from 0 to 16; "
                    + "unset it for 2, or set 0 to run every daemon on its root alone")
        }
        return count
    }

    /// Makes `count` siblings with their contents, owned by `user` when given (a daemon run as
    /// that user must read them and make their sockets).
    public init(count: Int, as user: UserIdentity?) throws {
        self.user = user
        var members: [Sibling] = []
        for _ in 0..<count {
            let tree = try TempTree(prefix: "qw-sibling")
            try tree.makeDirectory("home")
            try tree.makeDirectory("run", mode: 0o700)
            let top = TreePath("home") / Self.namespace
            try tree.makeDirectories(top / "deep")
            try tree.writeFile(top / "first", byteCount: 3_000)
            try tree.writeFile(top / "deep" / "second", byteCount: 9_000)
            if let user {
                try tree.setMode(.root, 0o755)
                for path in [TreePath("home"), "run", top, top / "deep", top / "first", top / "deep" / "second"] {
                    try tree.setOwner(path, user)
                }
            }
            members.append(
                Sibling(tree: tree, rootPath: tree.absolutePath("home"), socketPath: tree.absolutePath("run/sock")))
        }
        self.members = members
    }

    /// `SIBLING --socket S` for each, to follow the test root's own `ROOT --socket S`.
    public var arguments: [String] { members.flatMap { [$0.rootPath, "--socket", $0.socketPath] } }

    /// Whether `line` is one of a sibling's events (every line names its root).
    public func owns(_ line: EngineEventLine) -> Bool {
        guard let root = line.root else { return false }
        return members.contains { $0.rootPath == root }
    }

    /// A little churn in each sibling, different at each call: a file written, the last one
    /// moved down, the one before removed. Checked by the next ``problems(daemon:)``.
    public func churn() throws {
        churnRound += 1
        let top = TreePath("home") / Self.namespace
        for member in members {
            let tree = member.tree
            try tree.writeFile(top / "churn-\(churnRound)", byteCount: 700 * churnRound)
            if churnRound > 1 { try tree.rename(top / "churn-\(churnRound - 1)", to: top / "deep" / "churned") }
            if let user { try tree.setOwner(top / "churn-\(churnRound)", user) }
        }
    }

    /// Where the event lines of a daemon (`all`, every root's) show a sibling not isolated:
    /// a sibling's event naming a path outside ``namespace``, its `root_gone`, more than one
    /// `ready`; an event of another root naming a path inside ``namespace``.
    public func eventProblems(in all: [EngineEventLine]) -> [String] {
        var problems: [String] = []
        for line in all {
            let named = (line.path.map { [$0] } ?? []) + (line.paths ?? [])
            if owns(line) {
                let foreign = named.filter { $0 != "." && !$0.hasPrefix(Self.namespace) }
                if !foreign.isEmpty { problems.append("a sibling root has an event of another root's path: \(line)") }
                // Degraded is allowed: a watch limit is the user's, shared by every root.
                if line.event == "root_gone" { problems.append("a sibling root is gone: \(line)") }
            } else if named.contains(where: { $0.hasPrefix(Self.namespace) }) {
                problems.append("the test's root has an event of a sibling's path: \(line)")
            }
        }
        for member in members {
            let readies = all.filter { $0.root == member.rootPath && $0.event == "ready" }.count
            if readies > 1 { problems.append("sibling \(member.rootPath) was ready \(readies) times") }
        }
        return problems
    }

    /// The files below ``namespace`` after `round` churns (``churn()``): nothing else adds or
    /// removes one.
    static func expectedFiles(afterChurn round: Int) -> Set<String> {
        var files: Set<String> = ["first", "deep/second"]
        if round > 0 { files.insert("churn-\(round)") }
        if round > 1 { files.insert("deep/churned") }
        return files
    }

    /// The regular files below `directory`, relative to it.
    static func heldFiles(under directory: String) -> Set<String> {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
        return Set(
            paths.filter { path in
                var status = stat()
                return lstat(directory + "/" + path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
            })
    }

    /// Churns each sibling, then compares its `status --sync` with a fresh scan, and checks
    /// the events so far (``eventProblems(in:)``): every way a sibling is not its own exact root.
    public func problems(cli: CLIRunner, events all: [EngineEventLine]) throws -> [String] {
        try churn()
        var problems = eventProblems(in: all)
        let expected = Self.expectedFiles(afterChurn: churnRound)
        for member in members {
            // No root's cleaner, eviction or `clean --path` may reach into another root: a
            // sibling holds exactly the files the harness made, whatever the test deleted.
            let held = Self.heldFiles(under: member.tree.absolutePath(TreePath("home") / Self.namespace))
            if held != expected {
                problems.append(
                    "sibling \(member.rootPath) holds \(held.sorted()), not \(expected.sorted()): "
                        + "a file of a root was added or removed by something other than the test harness")
            }
            let asked = try cli.run(
                ["status", member.rootPath, "--socket", member.socketPath, "--json", "--sync", "--timeout", "60"],
                as: user)
            guard asked.exitStatus == 0, let live = try? LiveStatus(json: asked.standardOutput) else {
                problems.append("sibling \(member.rootPath) does not answer status --sync:\n\(asked)")
                continue
            }
            let (scanned, scan) = try cli.scanJSON(root: member.rootPath, as: user)
            guard let scan else {
                problems.append("the scan of sibling \(member.rootPath) printed no report:\n\(scanned)")
                continue
            }
            let state = live.engine.degraded.isEmpty ? "" : " (degraded: \(live.engine.degraded))"
            problems += ReportComparison.differences(live: live.report, scan: scan).map {
                "sibling \(member.rootPath)\(state): \($0)"
            }
        }
        return problems
    }
}
