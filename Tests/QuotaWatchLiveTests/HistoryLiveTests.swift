import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchTestSupport
import Testing

/// `run --history` and `quotawatch history` with the real binary: events and deletions after a
/// cleanup run, a restart, growth samples, and a database that is damaged or locked.
@Suite("history in the live daemon")
struct HistoryLiveTests {
    private static let root = LiveFixture.root
    private static let cache = root / "Caches" / "a"

    /// A fixture with a state directory of its own, passed as STATE_DIRECTORY to the daemon
    /// and as --state-dir to `history`.
    private struct Setup {
        let fixture: LiveFixture
        let state: TempTree

        init() throws {
            fixture = try LiveFixture()
            state = try TempTree(prefix: "qw-history-state")
            try fixture.tree.makeDirectories(HistoryLiveTests.cache)
            try fixture.tree.makeDirectories(HistoryLiveTests.root / "staging")
        }

        /// `run` with `options`: history is on by default, so no `--history` is given.
        @discardableResult
        func start(_ options: [String]) throws -> Daemon {
            try fixture.start(options: options, wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        }

        /// The root's state directory, as `run` and `history` name it.
        var stateDirectory: String {
            let directory = StateDirectory.forRoot(
                Array(fixture.rootPath.utf8), environment: ["STATE_DIRECTORY": state.rootPath], userID: getuid())
            return String(decoding: directory ?? [], as: UTF8.self)
        }

        var databasePath: String { stateDirectory + "/history.sqlite" }

        func history(_ arguments: [String]) throws -> ProcessResult {
            try fixture.cli.run(["history", fixture.rootPath, "--state-dir", state.rootPath] + arguments)
        }

        /// `history --json` with `arguments`, parsed; records an issue unless it succeeds.
        func events(_ arguments: [String] = []) throws -> [[String: Any]] {
            let result = try history(["--json"] + arguments)
            #expect(result.exitStatus == 0, "\(result)")
            return try String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
            }
        }

        /// Reads `history --json` until `done` holds. The database gives no signal when a batch
        /// lands, so this polls, with a deadline.
        func waitForHistory(
            _ arguments: [String] = [], _ what: String, timeout: Duration = .seconds(30),
            until done: ([[String: Any]]) -> Bool
        ) throws -> [[String: Any]] {
            let deadline = ContinuousClock.now + timeout
            while true {
                let events = (try? history(["--json"] + arguments)).flatMap { result -> [[String: Any]]? in
                    guard result.exitStatus == 0 else { return nil }
                    return String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").compactMap {
                        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                    }
                }
                if let events, done(events) { return events }
                guard ContinuousClock.now < deadline else {
                    throw DaemonError(
                        "history never showed \(what); last: \(events.map { "\($0)" } ?? "no history")",
                        daemon: try? fixture.running)
                }
                usleep(50_000)
            }
        }

        /// Every audit record, parsed.
        func auditRecords() throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: stateDirectory + "/audit.jsonl", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// Old files f1…f5 of 20 kB in the quota directory, then a 60 kB one renamed in: a breach.
        func makeOldFiles() throws {
            for index in 1...5 {
                try fixture.tree.writeFile(HistoryLiveTests.cache / "f\(index)", byteCount: 20_000)
                try setModified(
                    fixture.tree, HistoryLiveTests.cache / "f\(index)",
                    secondsSinceEpoch: 1_577_836_800 + index * 86_400)
            }
        }

        func arrive(_ name: String, bytes: Int) throws {
            try fixture.tree.writeFile(HistoryLiveTests.root / "staging" / name, byteCount: bytes)
            try fixture.tree.rename(HistoryLiveTests.root / "staging" / name, to: HistoryLiveTests.cache / name)
        }
    }

    private static func kinds(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    @Test("after a cleanup run: the breach, the run and every deletion of the audit log, with its outcome")
    func afterCleanup() throws {
        let setup = try Setup()
        try setup.makeOldFiles()
        let daemon = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
        try setup.arrive("new", bytes: 60_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try daemon.waitForEvent("cleanup")

        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(!intents.isEmpty)
        let deletions = try setup.waitForHistory(["--event", "deletion"], "every deletion, removed") { events in
            events.count == intents.count && events.allSatisfy { $0["result"] as? String == "removed" }
        }
        #expect(deletions.compactMap { $0["path"] as? String } == intents.compactMap { $0["path"] as? String })
        #expect(deletions.allSatisfy { $0["trigger"] as? String == "quota_breach" && $0["time"] != nil })

        let all = Self.kinds(try setup.events())
        #expect(all.first == "ready", "\(all)")
        #expect(all.contains("quota_breach") && all.contains("cleanup"), "\(all)")
        let breaches = try setup.events(["--event", "quota_breach", "--path", "Caches/*"])
        #expect(breaches.count == 1 && breaches.first?["path"] as? String == "Caches/a", "\(breaches)")

        // The human lines: local time, kind, path, details.
        let table = try setup.history(["--event", "deletion"])
        let lines = String(decoding: table.standardOutput, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == intents.count)
        #expect(lines.allSatisfy { $0.split(separator: " ").dropFirst().first == "deletion" }, "\(lines)")
        #expect(lines.allSatisfy { $0.contains("result=removed") && $0.contains("Caches/a/f") }, "\(lines)")
        try setup.fixture.stopCleanly()
    }

    @Test("after a restart: every event of both runs once, every deletion once")
    func afterRestart() throws {
        let setup = try Setup()
        try setup.makeOldFiles()
        var printed: [String] = []
        for round in 1...2 {
            let daemon = try setup.start(["--quota", "Caches/*=150kB", "--clean"])
            try setup.arrive("new\(round)", bytes: 60_000)
            try daemon.waitForEvent("quota_breach", path: "Caches/a")
            try daemon.waitForEvent("cleanup")
            try daemon.waitForEvent("quota_ok", path: "Caches/a")
            let exit = try daemon.stop(SIGTERM)
            #expect(exit.exitStatus == 0, "\(exit)")
            printed += exit.events.map(\.event)
        }
        let recorded = try setup.events()
        let recordedKinds = Self.kinds(recorded).filter { $0 != "deletion" }
        #expect(recordedKinds.sorted() == printed.sorted(), "printed \(printed)\nrecorded \(recordedKinds)")
        #expect(recordedKinds.filter { $0 == "ready" }.count == 2)

        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        let deletions = recorded.filter { $0["event"] as? String == "deletion" }
        #expect(deletions.count == intents.count && intents.count >= 2, "\(deletions.count) of \(intents.count)")
        let keys = deletions.map { "\($0["run"] ?? "")#\($0["seq"] ?? "")" }
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(deletions.allSatisfy { $0["result"] as? String == "removed" }, "\(deletions)")
    }

    @Test("--growth: periodic samples follow the writes, and a breach takes one of its own")
    func growth() throws {
        let setup = try Setup()
        let daemon = try setup.start(["--quota", "Caches/*=100kB", "--history-sample", "200ms"])
        try setup.arrive("first", bytes: 30_000)
        _ = try setup.waitForHistory([], "a sample after the first write") { _ in
            let samples = (try? self.growthSamples(setup)) ?? []
            return samples.contains {
                ($0["allocated"] as? Int ?? 0) >= 30_000 && $0["reason"] as? String == "periodic"
            }
        }
        try setup.arrive("second", bytes: 90_000)
        let breach = try daemon.waitForEvent("quota_breach", path: "Caches/a")
        var samples: [[String: Any]] = []
        _ = try setup.waitForHistory([], "the breach's sample, and a periodic one after it") { _ in
            samples = (try? self.growthSamples(setup)) ?? []
            guard let breachAt = samples.firstIndex(where: { $0["reason"] as? String == "breach" }) else {
                return false
            }
            return samples[breachAt...].contains { $0["reason"] as? String == "periodic" }
        }
        let atBreach = try #require(samples.first { $0["reason"] as? String == "breach" })
        #expect(atBreach["allocated"] as? Int == Int(breach.allocated ?? 0), "\(atBreach) vs \(breach)")
        let sizes = samples.compactMap { $0["allocated"] as? Int }
        #expect(sizes == sizes.sorted(), "only writes happened: \(sizes)")
        #expect(samples.first?["reason"] as? String == "ready")
        #expect(samples.filter { $0["reason"] as? String == "periodic" }.count >= 2)

        let table = try setup.history(["--growth", setup.fixture.rootPath + "/Caches/a", "--bytes"])
        let text = String(decoding: table.standardOutput, as: UTF8.self)
        #expect(table.exitStatus == 0 && text.hasPrefix("PATH: Caches/a\n"), "\(table)")
        #expect(text.contains("ALLOCATED") && text.contains(" breach") && text.contains("\(atBreach["allocated"]!)"))
        try setup.fixture.stopCleanly()
    }

    private func growthSamples(_ setup: Setup) throws -> [[String: Any]] {
        let result = try setup.history(["--growth", "Caches/a", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
        return object?["samples"] as? [[String: Any]] ?? []
    }

    @Test("the config's history: section turns recording on without --history")
    func fromConfig() throws {
        let setup = try Setup()
        try setup.fixture.tree.writeFile(
            "history.yaml", contents: Array("history: {sample_every: 200ms, keep: 1d}\n".utf8))
        try setup.fixture.start(
            options: ["--config", setup.fixture.tree.absolutePath("history.yaml")],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(setup.state.rootPath)"])
        _ = try setup.waitForHistory([], "the ready event") { Self.kinds($0).contains("ready") }
        _ = try setup.waitForHistory([], "two periodic samples of ROOT") { _ in
            let result = try? setup.history(["--growth", ".", "--json"])
            let object = result.flatMap { try? JSONSerialization.jsonObject(with: Data($0.standardOutput)) }
            let samples = (object as? [String: Any])?["samples"] as? [[String: Any]] ?? []
            return samples.filter { $0["reason"] as? String == "periodic" }.count >= 2
        }
        try setup.fixture.stopCleanly()
    }

    @Test("a database of garbage bytes: moved aside and reported; the daemon goes on and records anew")
    func corruptDatabase() throws {
        let setup = try Setup()
        try FileManager.default.createDirectory(atPath: setup.stateDirectory, withIntermediateDirectories: true)
        let garbage = Data((0..<32_768).map { UInt8(truncatingIfNeeded: ($0 &* 7919) ^ ($0 >> 3)) })
        try garbage.write(to: URL(fileURLWithPath: setup.databasePath))

        let daemon = try setup.start(["--quota", "Caches/*=100kB"])
        try daemon.waitForStandardError(containing: "not a usable database")
        _ = try daemon.status()
        try setup.arrive("big", bytes: 120_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        _ = try setup.waitForHistory(["--event", "quota_breach"], "the breach in the new database") { !$0.isEmpty }

        let resets = try setup.events(["--event", "history_reset"])
        let movedTo = try #require(resets.first?["moved_to"] as? String, "\(resets)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == garbage)
        #expect(Self.kinds(try setup.events()).contains("ready"))
        try setup.fixture.stopCleanly()
    }

    @Test("a database another process holds locked: reported, the daemon answers, the events land once it is free")
    func lockedDatabase() throws {
        let setup = try Setup()
        let daemon = try setup.start(["--quota", "Caches/*=100kB"])
        _ = try setup.waitForHistory([], "the ready event") { Self.kinds($0).contains("ready") }

        let holder = try SQLiteConnection(path: Array(setup.databasePath.utf8), mode: .readWrite)
        try holder.execute("BEGIN EXCLUSIVE")
        try setup.arrive("big", bytes: 120_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try daemon.waitForStandardError(containing: "cannot write")
        let status = try daemon.status()
        #expect(status.report.directories.contains { $0.path == "Caches/a" })
        // Readers are not held up by the writer's lock (WAL), and the breach is not there yet.
        #expect(try setup.events(["--event", "quota_breach"]).isEmpty)

        try holder.execute("COMMIT")
        try daemon.waitForStandardError(containing: "again")
        let breaches = try setup.waitForHistory(["--event", "quota_breach"], "the held breach") { !$0.isEmpty }
        #expect(breaches.count == 1)
        try setup.fixture.stopCleanly()
    }
}

@Suite("history is on by default")
struct HistoryDefaultTests {
    @Test("run --state-dir DIR records history with no --history; history --state-dir DIR reads it")
    func onByDefault() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-history-default")
        try fixture.tree.makeDirectories(LiveFixture.root / "Caches" / "a")
        let daemon = try fixture.start(options: ["--state-dir", state.rootPath, "--quota", "Caches/*=10kB"])
        try fixture.tree.writeFile(LiveFixture.root / "Caches" / "a" / "big", byteCount: 50_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try fixture.stopCleanly()
        let history = try fixture.cli.run(["history", fixture.rootPath, "--state-dir", state.rootPath, "--json"])
        #expect(history.exitStatus == 0, "\(history)")
        #expect(history.outputText.contains(#""event":"quota_breach""#), "\(history)")
    }

    @Test("--no-history records nothing; with a --history-* option it is a usage error naming both")
    func turnedOff() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-history-off")
        let daemon = try fixture.start(options: ["--state-dir", state.rootPath, "--no-history"])
        _ = try daemon.syncStatus()
        try fixture.stopCleanly()
        let found = FileManager.default.enumerator(atPath: state.rootPath)?.contains {
            ($0 as? String)?.hasSuffix("history.sqlite") == true
        }
        #expect(found != true, "--no-history wrote a history database")
        let both = try fixture.cli.run(
            ["run", fixture.rootPath, "--socket", fixture.socketPath, "--no-history", "--history-keep", "7d"])
        #expect(both.exitStatus == 64, "\(both)")
        #expect(both.errorText.contains("--no-history") && both.errorText.contains("--history-keep"), "\(both)")
    }

    @Test("a state directory that cannot be made: said once, and the daemon watches on without history")
    func unwritableStateDirectory() throws {
        let fixture = try LiveFixture()
        let daemon = try Daemon.start(
            fixture.cli, root: fixture.rootPath, socket: fixture.socketPath, options: ["--state-dir", "/dev/null/x"],
            wrapper: ["/usr/bin/env"])
        _ = try daemon.syncStatus()
        try fixture.tree.writeFile(LiveFixture.root / "f", byteCount: 1_000)
        _ = try daemon.syncStatus()
        let stopped = try daemon.stop()
        #expect(stopped.termination == .exited(0), "\(daemon.transcript)")
        let warnings = String(decoding: stopped.standardError, as: UTF8.self).split(separator: "\n").filter {
            $0.contains("history: cannot write /dev/null/x/root-")  // this root's, not a sibling's
        }
        #expect(warnings.count == 1, "said \(warnings.count) times: \(warnings)")
        #expect(warnings.first?.contains("--no-history") == true, "the way out: \(warnings)")
    }
}
