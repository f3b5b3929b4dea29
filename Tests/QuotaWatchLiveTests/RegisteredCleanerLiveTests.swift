import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchTestSupport
import Testing

/// Cleaners that running programs register over the control socket (`register_cleaner`),
/// through the Swift library's ``RegisteredCleanerConnection`` and raw lines.
@Suite("registered cleaners in the live daemon")
struct RegisteredCleanerLiveTests {
    let root = LiveFixture.root

    struct Setup {
        let fixture: LiveFixture
        let state: TempTree

        init() throws {
            fixture = try LiveFixture()
            state = try TempTree(prefix: "qw-registered-state")
        }

        /// Starts `run --clean` with `config` (YAML) and the extra options.
        func start(config: String, _ options: [String] = []) throws -> Daemon {
            try state.writeFile("app.yaml", contents: Array(config.utf8))
            return try fixture.start(
                options: ["--config", state.absolutePath("app.yaml"), "--clean"] + options,
                wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        }

        func connect(
            _ name: String, _ paths: [String], timeout: Duration? = nil
        ) throws -> RegisteredCleanerConnection {
            try RegisteredCleanerConnection(
                socketPath: Array(fixture.socketPath.utf8), name: name, paths: paths.map { Array($0.utf8) },
                timeout: timeout, receiveTimeout: .seconds(60))
        }
    }

    /// Files `f1`…`fN` of `bytes` each in `directory`, f1 the oldest.
    func makeOldFiles(_ tree: TempTree, _ directory: TreePath, count: Int, bytes: Int) throws {
        try tree.makeDirectories(directory)
        for index in 1...count {
            try tree.writeFile(directory / "f\(index)", byteCount: bytes)
            try setModified(tree, directory / "f\(index)", secondsSinceEpoch: 1_577_836_800 + index * 86_400)
        }
    }

    /// The next message that is not an event other than those `keep` names.
    private func next(
        _ connection: RegisteredCleanerConnection, skipping: Set<String> = ["quota_forecast", "quota_warning"]
    ) throws -> RegisteredCleanerConnection.Message {
        while let message = connection.next() {
            if case .event(let name, _) = message, skipping.contains(name) { continue }
            return message
        }
        throw DaemonError("the registered cleaner's connection closed or went quiet for 60 s")
    }

    private func context(_ connection: RegisteredCleanerConnection) throws -> RegisteredCleanerContext {
        while true {
            switch try next(connection) {
            case .context(let context): return context
            case .error(let message): throw DaemonError("the daemon said: \(message)")
            default: continue
            }
        }
    }

    private static let quotas = """
        quotas:
          - {path: 'Caches/*', limit: 150kB}
        """

    @Test("a breach sends the context, the cleaner removes files itself, the summary counts what it reported")
    func breachContextAndReply() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        let cache = root / "Caches" / "feed"
        try makeOldFiles(tree, cache, count: 5, bytes: 20_000)
        try tree.makeDirectories(root / "Caches" / "other")
        try tree.makeDirectories(root / "staging")
        let daemon = try setup.start(config: Self.quotas + "\ncleaners: [leftovers, registered, evict]\n")
        let cleaner = try setup.connect("feed", ["Caches/feed"])
        #expect(String(decoding: cleaner.greeting, as: UTF8.self).contains(#""timeout_ms":30000"#))

        // Its quotas: the row of its directory, not the other's.
        try cleaner.requestQuotas(sync: true)
        guard case .quotas(let status) = try next(cleaner) else { throw DaemonError("no quota status came") }
        #expect(status.quotas.map(\.path) == ["Caches/feed"], "\(status)")
        #expect(status.quotas.first?.effectiveLimit == 150_000)

        try tree.writeFile(root / "staging" / "new", byteCount: 60_000)
        try tree.rename(root / "staging" / "new", to: cache / "new")
        guard case .event("quota_breach", let breachLine) = try next(cleaner) else {
            throw DaemonError("the breach of its directory did not reach the registered cleaner")
        }
        #expect(String(decoding: breachLine, as: UTF8.self).contains(#""path":"Caches/feed""#))

        let context = try context(cleaner)
        #expect(context.trigger.kind == "quota_breach")
        let directory = try #require(context.directory)
        #expect(directory.path == "Caches/feed" && directory.effectiveLimit == 150_000, "\(directory)")
        #expect(directory.target <= 117_000 && directory.used > 150_000, "\(directory)")
        #expect(Set(context.candidates.map(\.path)) == Set((1...5).map { "Caches/feed/f\($0)" } + ["Caches/feed/new"]))

        // It removes the oldest until under its target, itself, and says so.
        var used = directory.used
        var removed: [[UInt8]] = []
        var freed: UInt64 = 0
        for candidate in context.candidates.sorted(by: { $0.modifiedMilliseconds < $1.modifiedMilliseconds })
        where used > directory.target {
            try tree.unlinkEntry(TreePath("root/\(candidate.path)"))
            removed.append(Array(candidate.path.utf8))
            freed += candidate.allocated
            used -= candidate.allocated
        }
        try cleaner.reply(RegisteredCleanerReply(freedBytes: freed, removed: removed), to: context)

        let summary = try CleanupLine(try daemon.waitForEvent("cleanup"))
        #expect(summary.cleanerNames == ["leftovers", "feed", "evict"], "\(summary.text)")
        #expect(summary.paths("feed") == removed.map { String(decoding: $0, as: UTF8.self) }, "\(summary.text)")
        #expect(summary.freed("feed") == freed && summary.error("feed") == nil, "\(summary.text)")
        // It got the run under the target: eviction, after it, had nothing left to do.
        #expect(summary.paths("evict").isEmpty, "\(summary.text)")
        // The completion callback reaches it too.
        guard case .event("cleanup", _) = try next(cleaner, skipping: ["quota_forecast", "quota_warning", "quota_ok"])
        else { throw DaemonError("the cleanup event did not reach the registered cleaner") }
        try daemon.waitForEvent("quota_ok", path: "Caches/feed")
        try setup.fixture.expectLiveMatchesScan("after the registered cleaner's removals", du: true)
        cleaner.close()
        try setup.fixture.stopCleanly()
    }

    @Test(
        "status is answered while a registered cleaner stalls; closing its connection ends its turn and unregisters it")
    func stallAndDrop() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, root / "Caches" / "slow", count: 2, bytes: 4_000)
        let daemon = try setup.start(config: Self.quotas)
        let slow = try setup.connect("slow", ["Caches/slow"], timeout: .seconds(600))
        let clean = try RawSocket.unix(setup.fixture.socketPath)
        try clean.send(Array(#"{"command":"clean","trigger":"stall"}"#.utf8) + [0x0A])
        let stalled = try context(slow)
        #expect(stalled.trigger.kind == "manual" && stalled.candidates.count == 2, "\(stalled)")

        // The run waits for it; every other client is answered meanwhile.
        let status = try daemon.status(sync: true)
        #expect(status.engine.watches > 0, "\(status.engine)")
        #expect(try daemon.quotas().row("Caches/slow").state == .ok)
        let again = Result { try setup.connect("slow", ["Caches/slow"]) }
        guard case .failure(let refusal) = again else { throw DaemonError("a second 'slow' was registered") }
        #expect("\(refusal)".contains("already registered"), "\(refusal)")

        slow.close()
        let reply = try CleanupLine(text: String(decoding: try clean.receiveLine().line, as: UTF8.self))
        #expect(reply.cleanerNames == ["leftovers", "evict", "slow"], "\(reply.text)")
        #expect(reply.error("slow")?.contains("closed before it replied") == true, "\(reply.text)")
        // Unregistered: the next run leaves it out, and the name is free again.
        let next = try CleanupLine(
            text: try daemon.statusCommand([
                "clean-now", setup.fixture.rootPath, "--socket", setup.fixture.socketPath, "--json",
            ]).outputText)
        #expect(next.cleanerNames == ["leftovers", "evict"], "\(next.text)")
        _ = try setup.connect("slow", ["Caches/slow"])
        try setup.fixture.stopCleanly()
    }

    @Test("a cleaner that never answers times out in the summary, the next one runs, and its late reply is refused")
    func timeoutThenNext() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, root / "Caches" / "a", count: 1, bytes: 4_000)
        try makeOldFiles(tree, root / "Caches" / "b", count: 1, bytes: 4_000)
        let daemon = try setup.start(config: Self.quotas)
        let mute = try setup.connect("mute", ["Caches/a"], timeout: .milliseconds(200))
        let prompt = try setup.connect("prompt", ["Caches/b"])
        let clean = try RawSocket.unix(setup.fixture.socketPath)
        try clean.send(Array(#"{"command":"clean"}"#.utf8) + [0x0A])
        let ignored = try context(mute)
        let answered = try context(prompt)
        try prompt.reply(RegisteredCleanerReply(freedBytes: 0, removed: []), to: answered)
        let reply = try CleanupLine(text: String(decoding: try clean.receiveLine().line, as: UTF8.self))
        #expect(reply.cleanerNames == ["leftovers", "evict", "mute", "prompt"], "\(reply.text)")
        #expect(reply.error("mute") == "timed out after 0.2 seconds", "\(reply.text)")
        #expect(reply.error("prompt") == nil, "\(reply.text)")

        try mute.reply(RegisteredCleanerReply(), to: ignored)
        guard case .error(let message) = try next(mute, skipping: ["quota_forecast", "quota_warning", "cleanup"]) else {
            throw DaemonError("a late reply was not refused")
        }
        #expect(message.contains("context \(ignored.context) is not waiting"), "\(message)")
        _ = try daemon.syncStatus()
        try setup.fixture.stopCleanly()
    }

    @Test("bad registrations and bad replies each get a clear error; the daemon stays exact")
    func badInput() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        try makeOldFiles(tree, root / "Caches" / "x", count: 3, bytes: 4_000)
        let daemon = try setup.start(config: Self.quotas)
        let socket = setup.fixture.socketPath

        func answer(_ request: [UInt8]) throws -> String {
            let connection = try RawSocket.unix(socket)
            defer { connection.close() }
            try connection.send(request + [0x0A])
            return String(decoding: try connection.receiveLine().line, as: UTF8.self)
        }
        let cases: [(String, [UInt8], String)] = [
            (
                "unknown field", Array(#"{"command":"register_cleaner","name":"a","paths":["x"],"colour":1}"#.utf8),
                "unknown field 'colour'"
            ),
            ("no paths", Array(#"{"command":"register_cleaner","name":"a"}"#.utf8), "the directories it cleans"),
            (
                "leaves ROOT", Array(#"{"command":"register_cleaner","name":"a","paths":["Caches/../../etc"]}"#.utf8),
                "leaves its directory"
            ),
            ("absolute", Array(#"{"command":"register_cleaner","name":"a","paths":["/etc"]}"#.utf8), "is absolute"),
            ("the root", Array(#"{"command":"register_cleaner","name":"a","paths":["."]}"#.utf8), "the root itself"),
            ("bad name", Array(#"{"command":"register_cleaner","name":"a b","paths":["x"]}"#.utf8), "'name' must be"),
            (
                "config name", Array(#"{"command":"register_cleaner","name":"evict","paths":["x"]}"#.utf8),
                "a cleaner in the config"
            ),
            (
                "timeout", Array(#"{"command":"register_cleaner","name":"a","paths":["x"],"timeout_ms":0}"#.utf8),
                "'timeout_ms' must be"
            ),
            (
                "not UTF-8",
                Array(#"{"command":"register_cleaner","name":"a","paths":[""#.utf8) + [0xFF, 0xFE]
                    + Array(#""]}"#.utf8), "not UTF-8 text (byte 0xff"
            ),
        ]
        for (what, request, expected) in cases {
            let line = try answer(request)
            #expect(line.contains(#"{"error":"#) && line.contains(expected), "\(what): \(line)")
        }

        // A reply that is not JSON, then one longer than a request may be.
        for (name, bad, expected) in [
            ("garbled", Array("this is not json\n".utf8), "not a JSON object"),
            ("huge", [UInt8](repeating: UInt8(ascii: "x"), count: 70_000), "longer than 65536 bytes"),
            ("stranger", Array(#"{"freed":1,"removed":["Caches/other/f"]}"#.utf8) + [0x0A], "outside its paths"),
            ("typed", Array(#"{"freed":"lots"}"#.utf8) + [0x0A], "'freed' must be a whole number"),
        ] {
            let connection = try RawSocket.unix(socket)
            try connection.send(
                Array(#"{"command":"register_cleaner","name":"\#(name)","paths":["Caches/x"]}"#.utf8) + [0x0A])
            #expect(
                String(decoding: try connection.receiveLine().line, as: UTF8.self).contains(#""event":"registered""#))
            let clean = try RawSocket.unix(socket)
            try clean.send(Array(#"{"command":"clean"}"#.utf8) + [0x0A])
            var line = ""
            while !line.contains(#""event":"context""#) {
                line = String(decoding: try connection.receiveLine().line, as: UTF8.self)
            }
            try connection.send(bad)
            let summary = try CleanupLine(text: String(decoding: try clean.receiveLine().line, as: UTF8.self))
            #expect(summary.error(name)?.contains(expected) == true, "\(name): \(summary.text)")
            connection.close()
            clean.close()
        }

        // Requests on its connection: quotas only, at most 4 waiting at once.
        let asker = try RawSocket.unix(socket)
        try asker.send(Array(#"{"command":"register_cleaner","name":"asker","paths":["Caches/x"]}"#.utf8) + [0x0A])
        #expect(String(decoding: try asker.receiveLine().line, as: UTF8.self).contains(#""event":"registered""#))
        var burst = Array(#"{"command":"clean_list"}"#.utf8) + [0x0A]
        for _ in 0..<10 { burst += Array(#"{"command":"status","select":"quotas"}"#.utf8) + [0x0A] }
        try asker.send(burst)
        var answers: [String] = []
        while answers.count < 11 {
            let line = String(decoding: try asker.receiveLine().line, as: UTF8.self)
            if !line.contains(#""event":"#) { answers.append(line) }
        }
        #expect(answers.filter { $0.contains(#""quotas":["#) }.count == 4, "\(answers)")
        #expect(answers.filter { $0.contains("are waiting already") }.count == 6, "\(answers)")
        #expect(answers.filter { $0.contains("answers only") && $0.contains("'clean_list'") }.count == 1, "\(answers)")
        asker.close()

        // A cap on registrations, with the way out in its error.
        var held: [RawSocket] = []
        for index in 0..<64 {
            let connection = try RawSocket.unix(socket)
            try connection.send(
                Array(#"{"command":"register_cleaner","name":"c\#(index)","paths":["Caches/x"]}"#.utf8) + [0x0A])
            let line = String(decoding: try connection.receiveLine().line, as: UTF8.self)
            #expect(line.contains(#""event":"registered""#), "\(index): \(line)")
            held.append(connection)
        }
        // A thousand registrations in all: every one past the cap is refused the same way.
        for index in 64..<1000 {
            let refused = try answer(
                Array(#"{"command":"register_cleaner","name":"c\#(index)","paths":["Caches/x"]}"#.utf8))
            #expect(refused.contains("already has 64 registered cleaners"), "\(index): \(refused)")
            if !refused.contains("already has 64") { break }
        }
        #expect(try daemon.status(sync: true).engine.watches > 0)
        for connection in held { connection.close() }
        try setup.fixture.expectLiveMatchesScan("after the bad registrations and replies", du: true)
        // Each bad reply is also said on stderr, so this stop cannot ask for a stderr without "error".
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
    }

    @Test(
        "a level change reaches the registered cleaner as an event and a context; its quotas then show the new level",
        .enabled(if: DiskLevelLiveTests.unavailableReason == nil, "needs 'unshare -m' and permission to mount a tmpfs"))
    func levelChange() throws {
        let setup = try Setup()
        try setup.state.writeFile("app.yaml", contents: Array("cleaners: [registered]\n".utf8))
        let wrapper = [
            "/usr/bin/env", "STATE_DIRECTORY=\(setup.state.rootPath)", "unshare", "-m", "sh", "-c",
            "mount -t tmpfs -o size=64m none '\(setup.fixture.rootPath)' && exec \"$0\" \"$@\"",
        ]
        let daemon = try setup.fixture.start(
            options: [
                "--config", setup.state.absolutePath("app.yaml"), "--clean", "--level-free", "50%,25%",
                "--quota", "Caches/*=10MB",
            ],
            wrapper: wrapper)
        let cleaner = try setup.connect("feed", ["Caches/feed"])
        // Another process in the daemon's namespace makes its directory, then fills the tmpfs.
        let fill = try ProcessRunner.run(
            "nsenter",
            [
                "-t", "\(daemon.processID)", "-m", "sh", "-c",
                #"mkdir -p "$1/Caches/feed" && head -c 50000000 /dev/zero > "$1/fill""#, "sh", daemon.root,
            ])
        #expect(fill.exitStatus == 0, "\(fill)")
        var level: String?
        var context: RegisteredCleanerContext?
        while level == nil || context == nil {
            switch try next(cleaner) {
            case .event("level", let line):
                let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                level = level ?? object?["to"] as? String
            case .context(let received):
                #expect(received.trigger.kind == "level", "\(received)")
                #expect(received.directory?.path == "Caches/feed", "its quota directory: \(received)")
                try cleaner.reply(RegisteredCleanerReply(), to: received)
                context = received
            default:
                continue
            }
        }
        #expect(level == "warning" || level == "critical", "\(String(describing: level))")
        // As a business does on a level change: it asks for its quotas again.
        try cleaner.requestQuotas(sync: true)
        while true {
            let skipping: Set<String> = ["quota_forecast", "quota_warning", "cleanup", "level"]
            guard case .quotas(let status) = try next(cleaner, skipping: skipping) else { continue }
            #expect(status.level.level != .normal && status.quotas.map(\.path) == ["Caches/feed"], "\(status)")
            break
        }
        cleaner.close()
        try setup.fixture.stopCleanly()
    }
}
