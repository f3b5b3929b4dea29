import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `run ROOT ROOT ROOT`: one daemon serving three roots, each as its own.
@Suite("Several roots in one daemon")
struct MultiRootLiveTests {
    private let root = LiveFixture.root
    private static let others: [TreePath] = ["second", "third"]

    /// Three roots with files, the daemon started on all three (the fixture's root first),
    /// each with its socket in the fixture's run/ directory; waits until all three are ready.
    private func start(_ fixture: LiveFixture, options: [String] = []) throws -> Daemon {
        let tree = fixture.tree
        try tree.makeDirectory(root / "a")
        try tree.writeFile(root / "a" / "one", byteCount: 30_000)
        for (index, other) in Self.others.enumerated() {
            try tree.makeDirectory(other)
            try tree.makeDirectory(other / "a")
            try tree.writeFile(other / "a" / "one", byteCount: 10_000 * (index + 2))
        }
        let extra = Self.others.flatMap { [tree.absolutePath($0), "--socket", socket(fixture, $0)] }
        let daemon = try fixture.start(options: extra + options)
        try daemon.waitForEvent("ready", count: 3)
        return daemon
    }

    private func socket(_ fixture: LiveFixture, _ other: TreePath) -> String {
        fixture.tree.absolutePath(TreePath("run") / "\(other).sock")
    }

    /// `status ROOT --socket S --sync --json` of one of the roots: its "." allocated bytes.
    private func allocated(_ daemon: Daemon, _ path: String, socket: String) throws -> Int64 {
        let result = try daemon.statusCommand(["status", path, "--socket", socket, "--sync", "--json"])
        guard result.exitStatus == 0 else { throw DaemonError("status \(path) failed", daemon: daemon, result: result) }
        let status = try LiveStatus(json: result.standardOutput)
        #expect(status.report.root == path)
        return try #require(status.report.directoriesByPath["."]).allocated
    }

    private func du(_ path: String) throws -> Int64 {
        let result = try ProcessRunner.run("/usr/bin/du", ["-sB1", path])
        return try #require(Int64(result.outputText.split(separator: "\t").first ?? ""), "\(result)")
    }

    @Test("each root's tally is its own du; a write in one moves that root only; /metrics shows each root")
    func threeRoots() throws {
        let fixture = try LiveFixture()
        let daemon = try start(fixture, options: ["--metrics-listen", "127.0.0.1:0"])
        let tree = fixture.tree
        let roots =
            [(fixture.rootPath, fixture.socketPath)]
            + Self.others.map { (tree.absolutePath($0), socket(fixture, $0)) }
        let readies = daemon.events("ready").map(\.text)
        for (path, _) in roots {
            #expect(readies.filter { $0.contains(#""root":"\#(path)""#) }.count == 1, "\(readies)")
        }
        var before: [String: Int64] = [:]
        for (path, socket) in roots {
            before[path] = try allocated(daemon, path, socket: socket)
            #expect(before[path] == (try du(path)), "\(path)")
        }

        try tree.writeFile(Self.others[0] / "a" / "two", byteCount: 100_000)
        let (written, writtenSocket) = roots[1]
        let after = try allocated(daemon, written, socket: writtenSocket)
        #expect(after == (try du(written)) && after > before[written]!)
        for (path, socket) in roots where path != written {
            #expect(try allocated(daemon, path, socket: socket) == before[path], "\(path) moved with another root")
        }

        try daemon.waitForStandardError(containing: "/metrics\n")
        let text = daemon.errorText
        let port = try #require(
            text.range(of: #"127\.0\.0\.1:[0-9]+/metrics"#, options: .regularExpression).flatMap {
                Int(text[$0].dropFirst("127.0.0.1:".count).prefix { $0.isNumber })
            })
        var now: [String: Double] = [:]
        for (path, socket) in roots { now[path] = Double(try allocated(daemon, path, socket: socket)) }
        // The exporter makes its snapshot about once a second: ask until it has the tallies above.
        let scraped = try pollAPI(
            "/metrics", "every root's allocated bytes", timeout: .seconds(10), interval: 0.1, log: daemon.transcript,
            ask: { [try PrometheusExposition(try HTTPGet.request(port: port, path: "/metrics").text)] },
            until: { answers in
                roots.allSatisfy { answers[0].value("quotawatch_root_allocated_bytes", ["root": $0.0]) == now[$0.0] }
            })
        let metrics = try #require(scraped.first)
        #expect(metrics.samples("quotawatch_build_info").count == 1)
        for (path, _) in roots { #expect(metrics.value("quotawatch_ready", ["root": path]) == 1, "\(path)") }
        let stopped = try daemon.stop()
        #expect(stopped.exitStatus == 0, "\(stopped)")
    }

    @Test("a root deleted stops alone: the others stay exact and answer; SIGHUP reaches every root")
    func oneRootGone() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(LiveFixture.outside / "config.yaml", contents: Array("quotas: []\n".utf8))
        let daemon = try start(fixture, options: ["--config", tree.absolutePath(LiveFixture.outside / "config.yaml")])
        let gone = tree.absolutePath(Self.others[1])
        try tree.removeSubtree(Self.others[1])
        try daemon.waitForEvent("root_gone", description: "for \(gone)") { $0.text.contains(gone) }
        let siblings = daemon.siblings?.members.count ?? 0
        try daemon.waitForStandardError(containing: "(\(2 + siblings) other root(s) still watched)")

        try tree.writeFile(root / "a" / "two", byteCount: 70_000)
        #expect(try allocated(daemon, fixture.rootPath, socket: fixture.socketPath) == (try du(fixture.rootPath)))
        let second = tree.absolutePath(Self.others[0])
        #expect(try allocated(daemon, second, socket: socket(fixture, Self.others[0])) == (try du(second)))
        let asked = try daemon.statusCommand(["status", gone, "--socket", socket(fixture, Self.others[1])])
        #expect(asked.exitStatus != 0, "the gone root's socket no longer answers: \(asked)")

        // The config read again by each root still served, from one SIGHUP.
        try tree.writeFile(
            LiveFixture.outside / "config-2.yaml", contents: Array("quotas:\n  - path: a\n    limit: 1MB\n".utf8))
        try tree.rename(LiveFixture.outside / "config-2.yaml", to: LiveFixture.outside / "config.yaml")
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_reloaded", count: 2)
        let stopped = try daemon.stop()
        #expect(stopped.exitStatus == 0, "\(stopped)")
        #expect(stopped.events.filter { $0.event == "config_reloaded" }.count == 2)
    }

    @Test("a hook's failure and a refused reload are logged once per root, each line naming its root")
    func logLinesNameTheirRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let config = LiveFixture.outside / "config.yaml"
        try tree.writeFile(
            config,
            contents: Array(
                "quotas:\n  - {path: a, limit: 1kB}\nhooks:\n  - {name: fails, command: [sh, -c, 'exit 3'], events: [quota_breach]}\n"
                    .utf8))
        let daemon = try start(fixture, options: ["--config", tree.absolutePath(config)])
        let roots = [fixture.rootPath] + Self.others.map { tree.absolutePath($0) }
        for path in roots { try daemon.waitForStandardError(containing: "warning: \(path): hook 'fails'") }

        try tree.writeFile(LiveFixture.outside / "bad.yaml", contents: Array("quotas: [\n".utf8))
        try tree.rename(LiveFixture.outside / "bad.yaml", to: config)
        daemon.send(SIGHUP)
        for path in roots {
            try daemon.waitForStandardError(containing: "quotawatch: \(path): SIGHUP: the config was not reloaded")
        }
        // The lines that name their root already do not name it twice.
        #expect(!daemon.errorText.contains("\(fixture.rootPath): ready: watching"), "\(daemon.errorText)")
        #expect(daemon.errorText.contains("quotawatch: ready: watching \(fixture.rootPath): "), "\(daemon.errorText)")
        let stopped = try daemon.stop()
        #expect(stopped.exitStatus == 0, "\(stopped)")
    }

    @Test("refused before anything starts: nested roots, a root twice, --socket not one per root")
    func refusals() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "inner")
        let cases: [([String], String)] = [
            (
                ["run", fixture.rootPath, tree.absolutePath(root / "inner")],
                "the root \(tree.absolutePath(root / "inner")) is inside the root \(fixture.rootPath)"
            ),
            (["run", fixture.rootPath, fixture.rootPath + "/"], "the root \(fixture.rootPath) is given twice"),
            (
                ["run", fixture.rootPath, tree.absolutePath(LiveFixture.outside), "--socket", fixture.socketPath],
                "1 --socket path(s) for 2 roots: give one --socket per ROOT"
            ),
        ]
        for (arguments, message) in cases {
            let result = try fixture.cli.run(arguments)
            #expect(result.exitStatus == 64, "\(arguments): \(result)")
            #expect(result.errorText.contains(message), "\(arguments): \(result.errorText)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath), "nothing was started")
    }

    @Test(
        "refused before anything starts: one directory at two paths, or a root inside another, through a bind mount",
        .enabled(if: DeletionBoundaryLiveTests.unavailable == nil, "\(DeletionBoundaryLiveTests.unavailable ?? "")"))
    func refusalsThroughABindMount() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "inner")
        try tree.makeDirectories(LiveFixture.outside / "mounted")
        let mounted = tree.absolutePath(LiveFixture.outside / "mounted")
        let cases: [([String], String)] = [
            (
                [fixture.rootPath, mounted],
                "the roots \(fixture.rootPath) and \(mounted) are one directory (a bind mount)"
            ),
            (
                [mounted + "/inner", fixture.rootPath],
                "the root \(mounted)/inner is inside the root \(fixture.rootPath): \(mounted) and \(fixture.rootPath) "
                    + "are one directory (a bind mount); nested roots are refused"
            ),
        ]
        for (roots, message) in cases {
            // In a private mount namespace: `mounted` is ROOT there, and nowhere else. A daemon
            // that started instead of refusing is stopped after 30 s (timeout's 124).
            let result = try ProcessRunner.run(
                "timeout",
                [
                    "30", "unshare", "-m", "--propagation", "private", "sh", "-c",
                    "mount --bind \"$1\" \"$2\" && shift 2 && exec \"$@\"", "sh", fixture.rootPath, mounted,
                    fixture.cli.executablePath, "run",
                ]
                    + roots.flatMap {
                        [$0, "--socket", tree.absolutePath(TreePath("run") / "\(roots.firstIndex(of: $0)!).sock")]
                    })
            #expect(result.exitStatus == 64, "\(roots): \(result)")
            #expect(result.errorText.contains(message), "\(roots): \(result.errorText)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath), "nothing was started")
    }
}

extension MultiRootLiveTests {
    @Test("a config's roots: glob serves each directory it matches, not hidden ones or symlinks; a root's own config")
    func configuredRoots() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for name in ["alice", "bob", ".hidden"] { try tree.makeDirectory(LiveFixture.outside / name) }
        try tree.writeFile(LiveFixture.outside / "bob" / "big", byteCount: 50_000)
        try tree.makeSymlink(LiveFixture.outside / "link", target: fixture.rootPath)
        let homes = tree.absolutePath(LiveFixture.outside)
        try tree.writeFile("strict.yaml", contents: Array("quotas:\n  - path: .\n    limit: 10kB\n".utf8))
        let config = """
            roots:
              - \(homes)/[a-z]*
              - path: \(fixture.rootPath)
                config: \(tree.absolutePath("strict.yaml"))
            quotas:
              - path: .
                limit: 1MB

            """
        try tree.writeFile("roots.yaml", contents: Array(config.utf8))
        let command = [
            fixture.cli.executablePath, "run", "--config", tree.absolutePath("roots.yaml"), "--events", "jsonl",
        ]
        let spawned = try DaemonSpawner.spawn(
            ["/usr/bin/env", "XDG_RUNTIME_DIR=\(tree.absolutePath("run"))"] + command)
        let output = StreamCollector(descriptor: spawned.output)
        defer {
            kill(spawned.processID, SIGTERM)
            var status: CInt = 0
            while waitpid(spawned.processID, &status, 0) == -1 && errno == EINTR {}
        }
        let served = ["\(homes)/alice", "\(homes)/bob", fixture.rootPath]
        let ready = output.wait(timeout: .seconds(60)) { bytes, _ in
            String(decoding: bytes, as: UTF8.self).components(separatedBy: #""event":"ready""#).count == 4
        }
        let events = String(decoding: output.snapshot.bytes, as: UTF8.self)
        #expect(ready, "\(events)")
        for path in served { #expect(events.contains(#""root":"\#(path)""#), "\(path) not served: \(events)") }
        #expect(!events.contains(".hidden") && !events.contains("\(homes)/link"), "\(events)")
        // The fixture's root has its own config: 10 kB, so bob's 50 kB would breach it there but not here.
        try tree.writeFile(root / "big", byteCount: 50_000)
        let breached = output.wait(timeout: .seconds(60)) { bytes, _ in
            String(decoding: bytes, as: UTF8.self).contains(#""event":"quota_breach""#)
        }
        #expect(breached)
        let breaches = String(decoding: output.snapshot.bytes, as: UTF8.self).split(separator: "\n")
            .filter { $0.contains(#""event":"quota_breach""#) }
        #expect(breaches.count == 1 && breaches[0].contains(#""root":"\#(fixture.rootPath)""#), "\(breaches)")
        // `status ROOT` finds each root at its default socket, with no --socket.
        let asked = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "XDG_RUNTIME_DIR=\(tree.absolutePath("run"))", fixture.cli.executablePath, "status", "\(homes)/bob",
                "--json",
            ])
        #expect(asked.exitStatus == 0, "\(asked)")
    }
}

extension MultiRootLiveTests {
    @Test("status alone lists every root served, each with its totals and the socket it answers on")
    func statusAloneListsRoots() throws {
        let fixture = try LiveFixture()
        let daemon = try start(fixture)
        let tree = fixture.tree
        let served =
            [(fixture.rootPath, fixture.socketPath)]
            + Self.others.map { (tree.absolutePath($0), socket(fixture, $0)) }
        let result = try fixture.cli.run(["status", "--json"])
        #expect(result.exitStatus == 0, "\(result)")
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: [[String: Any]]])["roots"]
        for (path, socket) in served {
            let row = try #require(listed?.first { $0["root"] as? String == path }, "\(path) is not listed: \(result)")
            #expect(row["socket"] as? String == socket)
            #expect(row["allocated"] as? Int64 == (try allocated(daemon, path, socket: socket)))
        }
        let table = try fixture.cli.run(["status"])
        #expect(table.exitStatus == 0 && served.allSatisfy { table.outputText.contains($0.0) }, "\(table)")
        #expect(table.outputText.contains("ask one with: quotawatch status ROOT"))
    }
}

extension MultiRootLiveTests {
    @Test(
        "a directory that comes to match roots: is served from then on; one removed is dropped, and served again when made again"
    )
    func rootsComeAndGo() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(LiveFixture.outside / "alice")
        let homes = tree.absolutePath(LiveFixture.outside)
        try tree.writeFile("roots.yaml", contents: Array("roots:\n  - \(homes)/*\n".utf8))
        let spawned = try DaemonSpawner.spawn([
            fixture.cli.executablePath, "run", "--config", tree.absolutePath("roots.yaml"), "--events", "jsonl",
        ])
        let output = StreamCollector(descriptor: spawned.output)
        let errors = StreamCollector(descriptor: spawned.errors)
        var reaped = false
        defer {
            if !reaped {
                kill(spawned.processID, SIGKILL)
                var status: CInt = 0
                while waitpid(spawned.processID, &status, 0) == -1 && errno == EINTR {}
            }
        }
        func lines(_ event: String, _ root: String, in bytes: [UInt8]) -> Int {
            String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter {
                $0.contains(#""event":"\#(event)""#) && $0.contains(root)
            }.count
        }
        // The predicate reads the bytes it is given: the collector's lock is held while it runs.
        func waitFor(_ event: String, _ root: String, count: Int) -> Bool {
            output.wait(timeout: .seconds(60)) { bytes, _ in lines(event, root, in: bytes) >= count }
        }
        #expect(waitFor("ready", "\(homes)/alice", count: 1))

        try tree.makeDirectory(LiveFixture.outside / "carol")
        #expect(
            waitFor("ready", "\(homes)/carol", count: 1), "\(String(decoding: errors.snapshot.bytes, as: UTF8.self))")
        try tree.writeFile(LiveFixture.outside / "carol" / "f", byteCount: 60_000)
        let carol = "\(homes)/carol"
        let status = try fixture.cli.run(["status", carol, "--sync", "--json"])
        let report = try LiveStatus(json: status.standardOutput)
        let du = try ProcessRunner.run("/usr/bin/du", ["-sB1", carol]).outputText.split(separator: "\t").first
        #expect(report.report.directoriesByPath["."].map { "\($0.allocated)" } == du.map(String.init), "\(status)")

        try tree.removeSubtree(LiveFixture.outside / "carol")
        #expect(waitFor("root_gone", carol, count: 1))
        try tree.makeDirectory(LiveFixture.outside / "carol")
        #expect(waitFor("ready", carol, count: 2), "\(String(decoding: errors.snapshot.bytes, as: UTF8.self))")
        // Removing every root leaves the daemon waiting for the next one, until a signal.
        try tree.removeSubtree(LiveFixture.outside / "carol")
        try tree.removeSubtree(LiveFixture.outside / "alice")
        #expect(waitFor("root_gone", "\(homes)/alice", count: 1))
        #expect(waitFor("root_gone", carol, count: 2))
        kill(spawned.processID, SIGTERM)
        var status2: CInt = 0
        while waitpid(spawned.processID, &status2, 0) == -1 && errno == EINTR {}
        reaped = true
        #expect(status2 & 0x7F == 0 && (status2 >> 8) & 0xFF == 0, "exits 0 after SIGTERM: \(status2)")
    }
}
