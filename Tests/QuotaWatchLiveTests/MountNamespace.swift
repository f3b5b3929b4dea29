import Foundation
import QuotaWatchTestSupport

/// A daemon in a private mount namespace of its own (`unshare --mount --propagation private`),
/// the mounts a test makes in it (`nsenter -t PID -m`), and du, find and scan as seen from it:
/// nothing outside the test sees these mounts, and they go with the daemon.
enum MountNamespace {
    /// Why bind mounts and tmpfs mounts cannot be made in a private mount namespace here, or nil.
    static let unavailableReason: String? = {
        for tool in ["unshare", "nsenter", "mount", "umount"] where ProcessRunner.findExecutable(tool) == nil {
            return "\(tool) (util-linux) is not installed"
        }
        let script = #"""
            d=$(mktemp -d) && mkdir "$d/a" "$d/b" && mount --bind "$d/a" "$d/b" && mount -t tmpfs -o size=1m none "$d/a" \
                && umount "$d/a" && umount "$d/b"; r=$?; rm -rf "$d"; exit $r
            """#
        let probe = try? ProcessRunner.run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script])
        guard let probe else { return "unshare could not be run" }
        guard probe.exitStatus == 0 else {
            return "cannot bind-mount and mount a tmpfs in a private mount namespace (needs root): \(probe.errorText)"
        }
        return nil
    }()

    /// A `Daemon.start` wrapper: a private mount namespace where `setup` (sh, with the root as
    /// `$R`) runs before the daemon is executed in it.
    static func wrapper(root: String, setup: String = "true") -> [String] {
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", "R='\(root)'; \(setup) && exec \"$0\" \"$@\""]
    }

    /// Runs `script` with sh in the daemon's mount namespace, the root as `$R`.
    @discardableResult
    static func run(_ daemon: Daemon, _ script: String) throws -> ProcessResult {
        try ProcessRunner.run(
            "nsenter", ["-t", "\(daemon.processID)", "-m", "sh", "-c", "R=\"$1\"; " + script, "sh", daemon.root])
    }

    /// The same, failing when the script fails.
    static func inside(_ daemon: Daemon, _ script: String) throws {
        let result = try run(daemon, script)
        guard result.exitStatus == 0 else { throw DaemonError("inside the namespace: \(script)", result: result) }
    }

    /// The tree as the daemon's namespace shows it, for find and du (`/proc/PID/root`).
    static func view(of fixture: LiveFixture, _ daemon: Daemon) -> TempTree {
        TempTree(viewing: "/proc/\(daemon.processID)/root" + fixture.tree.rootPath)
    }

    /// `quotawatch scan ROOT --json` run in the daemon's namespace. With `warnings`, a scan that
    /// warned (exit 1) is taken too: a bind mount of a directory removed since shows a
    /// directory that cannot be listed any more, which du and scan both count as its own inode.
    static func scan(
        _ fixture: LiveFixture, _ daemon: Daemon, options: [String] = [], warnings: Bool = false
    ) throws -> ScanReport {
        let result = try ProcessRunner.run(
            "nsenter",
            ["-t", "\(daemon.processID)", "-m", fixture.cli.executablePath, "scan", fixture.rootPath, "--json"]
                + options)
        guard result.exitStatus == 0 || (warnings && result.exitStatus == 1),
            let report = try? ScanReport.decode(result.standardOutput)
        else {
            throw DaemonError("the scan in the namespace failed", result: result)
        }
        return report
    }

    /// `du -sB1` and `du -sb` of `path` (relative to the root) in the daemon's namespace.
    static func du(_ daemon: Daemon, _ path: String) throws -> (allocated: Int64, apparent: Int64) {
        let result = try run(daemon, "cd \"$R\" && du -sB1 -- '\(path)' | cut -f1 && du -sb -- '\(path)' | cut -f1")
        let numbers = result.outputText.split(separator: "\n").compactMap { Int64($0) }
        guard result.exitStatus == 0 || result.exitStatus == 1, numbers.count == 2 else {
            throw DaemonError("du \(path) failed", result: result)
        }
        return (numbers[0], numbers[1])
    }

    /// Every way the daemon's `status --sync` differs from a scan and from du and find in its
    /// namespace, one per line. With `oneFileSystem`, as `du -x` and `find -xdev` see it, and
    /// the mount points in `ignoring` (listed by find, never by the daemon) left out.
    static func mismatches(
        _ fixture: LiveFixture, _ daemon: Daemon, oneFileSystem: Bool = false, ignoring: [TreePath] = []
    ) throws -> [String] {
        let status = try daemon.syncStatus()
        let scan = try scan(fixture, daemon, options: oneFileSystem ? ["--one-file-system"] : [])
        var problems = ReportComparison.differences(live: status.report, scan: scan).map { "scan: \($0)" }
        let view = view(of: fixture, daemon)
        let census = try TreeCensus.take(of: view, root: LiveFixture.root, oneFileSystem: oneFileSystem)
        let du = try DuOracle.measure(
            view, root: LiveFixture.root, directories: census.directories, oneFileSystem: oneFileSystem)
        let expectation = ScanExpectation(rootPath: fixture.rootPath, census: census, du: du)
        problems += expectation.mismatches(in: status.report, ignoring: ignoring, comparingCounts: !oneFileSystem)
            .map { "du: \($0)" }
        return problems.isEmpty ? [] : problems + ["engine: \(status.engine)"]
    }

    /// Every directory where the daemon's `status --sync` differs from a scan, or from the row
    /// `du -B1 ROOT` and `du -b ROOT` give it, in the daemon's namespace, one per line. Where
    /// ROOT's traversal meets a cycle, a directory's row in du's listing of ROOT (the cycle
    /// skipped) differs from `du -s` of that directory alone (which goes round it once more),
    /// and the row is what the daemon keeps.
    static func mismatchesWithDuOfRoot(_ fixture: LiveFixture, _ daemon: Daemon) throws -> [String] {
        let status = try daemon.syncStatus()
        let scan = try scan(fixture, daemon)
        var problems = ReportComparison.differences(live: status.report, scan: scan).map { "scan: \($0)" }
        let result = try run(daemon, #"cd "$R" && du -0 -B1 . && printf '\0-\0' && du -0 -b ."#)
        guard result.exitStatus == 0 else { throw DaemonError("du of the root failed", result: result) }
        let records = result.standardOutput.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        var allocated: [String: Int64] = [:]
        var apparent: [String: Int64] = [:]
        var sizes = true
        for record in records {
            if record == "-" {
                sizes = false
                continue
            }
            let fields = record.split(separator: "\t", maxSplits: 1)
            guard fields.count == 2, let size = Int64(fields[0]) else { continue }
            let path = fields[1] == "." ? "." : String(fields[1].dropFirst(2))
            if sizes { allocated[path] = size } else { apparent[path] = size }
        }
        let rows = status.report.directoriesByPath
        for path in Set(allocated.keys).union(rows.keys).sorted() {
            let row = rows[path]
            if row?.allocated != allocated[path] || row?.apparent != apparent[path] {
                problems.append(
                    "du: \(path): daemon \(row.map { "\($0.allocated) \($0.apparent)" } ?? "none"), du "
                        + "\(allocated[path].map(String.init) ?? "none") \(apparent[path].map(String.init) ?? "none")")
            }
        }
        return problems.isEmpty ? [] : problems + ["engine: \(status.engine)"]
    }
}
