import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// The cleaners in the live daemon: triggers from its own events, deletions it then sees as
/// ordinary events, the dry run, the audit log, `clean-now`.
@Suite("cleaners in the live daemon")
struct CleanupLiveTests {
    let root = LiveFixture.root
    var cache: TreePath { root / "Caches" / "a" }

    /// A fixture with a state directory of its own (`STATE_DIRECTORY`, set through `env`).
    struct Setup {
        let fixture: LiveFixture
        let state: TempTree

        init() throws {
            fixture = try LiveFixture()
            state = try TempTree(prefix: "qw-cleanup-state")
        }

        var wrapper: [String] { ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"] }

        func start(_ options: [String]) throws -> Daemon { try fixture.start(options: options, wrapper: wrapper) }

        /// Every audit record, parsed.
        func auditRecords() throws -> [[String: Any]] {
            var records: [[String: Any]] = []
            let base = URL(fileURLWithPath: state.rootPath)
            for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
                ?? .init()
            where url.lastPathComponent == "audit.jsonl" {
                let text = try String(contentsOf: url, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                        records.append(object)
                    }
                }
            }
            return records
        }
    }

    /// Files `f1`…`fN` of `bytes` each, f1 the oldest (mtimes a day apart, in 2020).
    private func makeOldFiles(_ tree: TempTree, count: Int, bytes: Int) throws {
        try tree.makeDirectories(cache)
        try tree.makeDirectories(root / "staging")
        for index in 1...count {
            try tree.writeFile(cache / "f\(index)", byteCount: bytes)
            try setModified(tree, cache / "f\(index)", secondsSinceEpoch: 1_577_836_800 + index * 86_400)
        }
    }

    /// A file of `bytes` written outside the quota directory and renamed in, so it arrives whole.
    private func arrive(_ tree: TempTree, _ name: String, bytes: Int) throws {
        try tree.writeFile(root / "staging" / name, byteCount: bytes)
        try tree.rename(root / "staging" / name, to: cache / name)
    }

    /// What eviction oldest-first must remove from `names` (oldest first) to bring the
    /// directory under 80 % of `limit` and under the way back to quota_ok (the default
    /// warning line, 80 %, less the hysteresis band, 2 %), from the allocated sizes on disk.
    private func expectedEvictions(_ tree: TempTree, _ names: [String], limit: UInt64) throws -> [String] {
        // du counts the directory's own blocks too. A name not there yet waits in staging.
        func path(_ name: String) throws -> TreePath {
            try tree.exists(cache / name) ? cache / name : root / "staging" / name
        }
        var used = try names.reduce(try allocated(tree, cache)) { $0 + (try allocated(tree, try path($1))) }
        let target = min(limit / 5 * 4, limit * 78 / 100 - 1)
        var removed: [String] = []
        for name in names where used > target {
            used -= try allocated(tree, try path(name))
            removed.append(name)
        }
        return removed
    }

    @Test("a breach evicts oldest first down to the target, quota_ok follows, nothing is re-listed, all audited")
    func breachEvicts() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, count: 5, bytes: 20_000)
        let daemon = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
        let before = try daemon.syncStatus()
        // Computed before the rename: the daemon starts evicting as soon as it sees it.
        try tree.writeFile(root / "staging" / "new", byteCount: 60_000)
        let expected = try expectedEvictions(tree, ["f1", "f2", "f3", "f4", "f5", "new"], limit: 150_000)
        try tree.rename(root / "staging" / "new", to: cache / "new")
        #expect(!expected.isEmpty && !expected.contains("new"), "the test's sizes must breach: \(expected)")

        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        let line = try daemon.waitForEvent("cleanup")
        let cleanup = try CleanupLine(line)
        #expect(cleanup.trigger == "quota_breach" && !cleanup.dryRun, "\(line)")
        #expect(cleanup.paths("evict") == expected.map { "Caches/a/\($0)" }, "\(line)")
        try daemon.waitForEvent("quota_ok", path: "Caches/a")
        for name in ["f1", "f2", "f3", "f4", "f5", "new"] {
            #expect(try tree.exists(cache / name) == !expected.contains(name), "\(name)")
        }
        let after = try daemon.syncStatus()
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(after.engine)")
        #expect((try daemon.quotas().row("Caches/a").used ?? .max) < 117_000)

        let audit = try setup.auditRecords()
        let intents = audit.filter { $0["record"] as? String == "intent" }.compactMap { $0["path"] as? String }
        let removed = audit.filter { $0["record"] as? String == "outcome" && $0["result"] as? String == "removed" }
        #expect(intents == expected.map { "Caches/a/\($0)" }, "\(audit)")
        #expect(removed.count == expected.count, "\(audit)")
        #expect(
            audit.filter { $0["record"] as? String == "intent" }.allSatisfy {
                $0["trigger"] as? String == "quota_breach"
            })
        try setup.fixture.stopCleanly()
    }

    @Test("a directory being cleaned goes breach → ok: the warning band it walks through is not reported")
    func cleanedDirectoryDoesNotFlap() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        // 60 files of 8 kB under 150 kB: eviction removes about 45 of them, one at a time, so
        // the tally passes through the warning band (120–148 kB) on its way to the target.
        try makeOldFiles(tree, count: 60, bytes: 8_000)
        let daemon = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try daemon.waitForEvent("cleanup")
        try daemon.waitForEvent("quota_ok", path: "Caches/a")
        _ = try daemon.syncStatus()
        let states = daemon.events.filter {
            $0.event.hasPrefix("quota_") && $0.event != "quota_forecast" && $0.path == "Caches/a"
        }.map(\.event)
        #expect(states == ["quota_breach", "quota_ok"], "\(daemon.transcript)")
        #expect((try daemon.quotas().row("Caches/a").state) == .ok)
        try setup.fixture.stopCleanly()
    }

    @Test("clean-now's summary comes last, in decimal units, and --top caps each cleaner's list")
    func cleanNowOutput() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, count: 30, bytes: 10_000)
        let daemon = try setup.start(["--quota", "Caches/*=100kB"])
        _ = try daemon.syncStatus()
        let result = try setup.fixture.cli.run(["clean-now", "--socket", setup.fixture.socketPath, "--top", "5"])
        #expect(result.exitStatus == 0, "\(result)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.last?.hasPrefix("cleanup ") == true, "the summary is not last: \(lines)")
        #expect(lines.last?.contains(" KB in ") == true, "not in decimal units: \(String(describing: lines.last))")
        let listed = lines.filter { $0.hasPrefix("    Caches/a/") }
        #expect(listed.count == 5, "\(lines)")
        #expect(lines.contains { $0.contains("… and ") && $0.contains(" more") }, "\(lines)")
        let iec = try setup.fixture.cli.run(["clean-now", "--socket", setup.fixture.socketPath, "--iec"])
        #expect(iec.outputText.contains("KiB"), "\(iec)")
        try setup.fixture.stopCleanly()
    }

    @Test("without --clean (or with --dry-run) the cleanup event lists exactly what a --clean start then removes")
    func dryRunListsWhatARealRunRemoves() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, count: 5, bytes: 20_000)
        let names = ["f1", "f2", "f3", "f4", "f5", "f6"]
        try tree.writeFile(cache / "f6", byteCount: 50_000)
        try setModified(tree, cache / "f6", secondsSinceEpoch: 1_600_000_000)

        let dry = try setup.start(["--quota", "Caches/*=150kB"])
        let reported = try CleanupLine(try dry.waitForEvent("cleanup"))
        #expect(reported.dryRun && reported.trigger == "quota_breach")
        let listed = reported.paths("evict")
        #expect(!listed.isEmpty)
        #expect(listed == (try expectedEvictions(tree, names, limit: 150_000)).map { "Caches/a/\($0)" })
        for name in names { #expect(try tree.exists(cache / name), "the dry run removed \(name)") }
        #expect(try setup.auditRecords().isEmpty, "a dry run writes no audit record")
        try setup.fixture.stopCleanly()

        // --dry-run wins over --clean.
        let both = try setup.start(["--quota", "Caches/*=150kB", "--clean", "--dry-run"])
        let again = try CleanupLine(try both.waitForEvent("cleanup"))
        #expect(again.dryRun && again.paths("evict") == listed, "\(again.text)")
        for name in names { #expect(try tree.exists(cache / name), "--clean --dry-run removed \(name)") }
        #expect(try setup.auditRecords().isEmpty)
        try setup.fixture.stopCleanly()

        let real = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
        let done = try CleanupLine(try real.waitForEvent("cleanup"))
        #expect(!done.dryRun && done.paths("evict") == listed)
        for name in names { #expect(try tree.exists(cache / name) == !listed.contains("Caches/a/\(name)"), "\(name)") }
        try real.waitForEvent("quota_ok", path: "Caches/a")
        try setup.fixture.stopCleanly()
    }

    @Test("a failing and a hanging command do not stop the others; clean-now answers once with the summary")
    func commandsFailAndHang() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, count: 3, bytes: 20_000)
        let marker = setup.state.rootPath + "/touched"
        try tree.writeFile(root / "config.yaml", contents: Array(Self.commandsConfig(marker: marker).utf8))
        let daemon = try setup.start(["--config", tree.absolutePath(root / "config.yaml"), "--clean"])
        _ = try daemon.syncStatus()
        // expire counts from the newest of atime, mtime and ctime: the old mtimes are not enough.
        try waitUntilUnchanged(tree, (1...3).map { cache / "f\($0)" }, forMoreThan: 1)
        let dry = try setup.fixture.cli.run(["clean-now", "--socket", setup.fixture.socketPath, "--dry-run", "--json"])
        let listed = try CleanupLine(text: String(decoding: dry.standardOutput, as: UTF8.self))
        #expect(listed.dryRun && listed.paths("old").count == 3 && listed.error("hangs") == nil, "\(listed.text)")
        #expect(!FileManager.default.fileExists(atPath: marker), "a dry run starts no command")
        let result = try setup.fixture.cli.run([
            "clean-now", "--socket", setup.fixture.socketPath, "--trigger", "by-test", "--json",
        ])
        #expect(result.exitStatus == 0, "\(result)\n\(daemon.transcript)")
        let reply = try CleanupLine(text: String(decoding: result.standardOutput, as: UTF8.self))
        #expect(reply.cleanerNames == ["fails", "hangs", "touches", "old"])
        #expect(FileManager.default.fileExists(atPath: marker), "the command after the hanging one ran")
        #expect(reply.error("fails")?.contains("exited with status 3") == true, "\(reply.text)")
        #expect(reply.error("hangs")?.contains("timed out") == true, "\(reply.text)")
        #expect(reply.error("old") == nil && reply.paths("old").count == 3, "\(reply.text)")
        #expect(reply.trigger == "manual" && reply.text.contains(#""name":"by-test""#))
        let event = try daemon.waitForEvent("cleanup", count: 2)
        #expect(daemon.events("cleanup").count == 2, "the completion ran once per run\n\(daemon.transcript)")
        #expect(try CleanupLine(event).run == reply.run)
        for index in 1...3 { #expect(try !tree.exists(cache / "f\(index)")) }
        try setup.fixture.stopCleanly()
    }

    @Test("an inode with a name outside the directory goes last: its removal would free nothing there")
    func hardLinkedOutsideGoesLast() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, count: 5, bytes: 20_000)
        try tree.makeDirectories(root / "kept")
        try tree.makeHardLink(root / "kept" / "f1-link", to: cache / "f1")
        let daemon = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
        _ = try daemon.syncStatus()
        try arrive(tree, "new", bytes: 60_000)
        let cleanup = try CleanupLine(try daemon.waitForEvent("cleanup"))
        let removed = cleanup.paths("evict")
        #expect(removed.first == "Caches/a/f2" && !removed.contains("Caches/a/f1"), "\(cleanup.text)")
        #expect(try tree.exists(cache / "f1") && tree.exists(root / "kept" / "f1-link"))
        try daemon.waitForEvent("quota_ok", path: "Caches/a")
        try setup.fixture.stopCleanly()
    }

    @Test("--clean with a state directory that cannot be made refuses to start, saying how to fix it")
    func cleanNeedsAStateDirectory() throws {
        let fixture = try LiveFixture()
        // A regular file where the state directory should be: no audit log can be opened.
        try fixture.tree.writeFile(LiveFixture.outside / "not-a-directory", byteCount: 10)
        let state = fixture.tree.absolutePath(LiveFixture.outside / "not-a-directory")
        let daemon = try Daemon.launch(
            fixture.cli, root: fixture.rootPath, socket: fixture.socketPath, options: ["--clean"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state)"])
        let exit = try daemon.waitForExit()
        #expect(exit.exitStatus == 73, "EX_CANTCREAT, cleaning's own status: \(exit)")
        #expect(exit.errorText.contains("audit log") && exit.errorText.contains("run without --clean"), "\(exit)")
    }

    static func commandsConfig(marker: String) -> String {
        """
        cleaners:
          - kind: command
            name: fails
            command: ["/bin/sh", "-c", "exit 3"]
          - kind: command
            name: hangs
            command: ["/bin/sleep", "60"]
            timeout: 1s
          - kind: command
            name: touches
            command: ["/usr/bin/touch", "\(marker)"]
          - kind: expire
            name: old
            path: "Caches/**"
            age: 1s
        """
    }

    @Test(
        "an abandoned CFNetworkDownload there at start is removed by the first run, one held open for writing is not"
    )
    func leftoverDownloads() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        for directory in ["Documents", "Library", "tmp"] { try tree.makeDirectory(root / directory) }
        let abandoned = root / "tmp" / "CFNetworkDownload_abandoned.tmp"
        let running = root / "tmp" / "CFNetworkDownload_running.tmp"
        try tree.writeFile(abandoned, byteCount: 30_000)
        try tree.writeFile(running, byteCount: 30_000)
        let writer = try tree.openForAppending(running)
        defer { close(writer) }
        for path in [abandoned, running] { try setModified(tree, path, secondsSinceEpoch: 1_600_000_000) }
        let daemon = try setup.start(["--leftover-after", "1s", "--clean"])
        let first = try CleanupLine(try daemon.waitForEvent("cleanup"))
        #expect(first.trigger == "leftover" && !first.dryRun, "\(first.text)")
        #expect(first.paths("leftovers") == ["tmp/CFNetworkDownload_abandoned.tmp"], "\(first.text)")
        _ = try daemon.syncStatus()
        #expect(try !tree.exists(abandoned))

        // Nothing is left for clean-now: the open download is no leftover.
        let dry = try setup.fixture.cli.run(["clean-now", "--socket", setup.fixture.socketPath, "--dry-run", "--json"])
        let listed = try CleanupLine(text: String(decoding: dry.standardOutput, as: UTF8.self))
        #expect(listed.dryRun && listed.paths("leftovers").isEmpty, "\(listed.text)")
        #expect(try tree.exists(running), "a download open for writing is never removed")
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(intents.compactMap { $0["path"] as? String } == ["tmp/CFNetworkDownload_abandoned.tmp"])
        #expect(intents.first?["rule"] as? String == "cfnetwork-download")
        try setup.fixture.stopCleanly()
    }
}
