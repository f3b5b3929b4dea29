import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// The example hooks in scripts/hooks, run by the real runner against local stand-ins.
@Suite("Example hook scripts")
struct HookScriptTests {
    private static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/hooks").standardized.path

    private static func installed(_ command: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(command)", X_OK) == 0 }
    }

    private static let daemonPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"

    @Test(
        "alertmanager.sh posts a breach as an active alert of its root and rule, and resolves that rule's warning and forecast",
        .enabled(if: installed("curl"), "curl is not installed: apt-get install curl"),
        .enabled(if: installed("python3"), "python3 is not installed: apt-get install python3"))
    func alertmanagerBreach() throws {
        let receiver = try FakeAlertmanager()
        let reports = HookReports()
        let hook = HookSpec(
            name: "alertmanager",
            command: [Array("\(Self.scripts)/alertmanager.sh".utf8), Array("http://127.0.0.1:\(receiver.port)/".utf8)])
        let runner = try HookRunner(
            hooks: [hook], environment: [(name: "PATH", value: Self.daemonPath)], onFailure: reports.onFailure,
            onRun: reports.onRun)
        defer { runner.stop() }
        let event = PolicyEvent(
            .quota(
                state: .breach, path: Array("Library/Caches/Feed".utf8), used: 210_000_000, size: .allocated,
                limit: 200_000_000, effectiveLimit: 200_000_000, rule: "Library/Caches/*", level: .normal),
            time: WallTime(millisecondsSinceEpoch: 1_796_166_000_000))
        runner.submit(event.hookEvent(root: "/srv/app"))
        let run = try #require(try reports.waitForRuns(1).first)
        #expect(
            run.failure == nil,
            "\(run.failure.map { "\($0.summary): \(String(decoding: $0.standardErrorTail, as: UTF8.self))" } ?? "")")

        let requests = try receiver.requests()
        #expect(requests.count == 1)
        #expect(requests.first?.path == "/api/v2/alerts")
        let alerts = try #require(
            try JSONSerialization.jsonObject(with: requests.first?.body ?? Data()) as? [[String: Any]])
        let named = alerts.compactMap { alert -> (String, [String: Any])? in
            guard let labels = alert["labels"] as? [String: String], let name = labels["alertname"] else { return nil }
            return (name, alert)
        }
        #expect(
            named.map(\.0).sorted() == ["QuotaWatchForecastBreach", "QuotaWatchQuotaBreach", "QuotaWatchQuotaWarning"],
            "\(alerts)")
        let byName = Dictionary(named, uniquingKeysWith: { first, _ in first })
        let breach = try #require(byName["QuotaWatchQuotaBreach"])
        let labels = try #require(breach["labels"] as? [String: String])
        // As contrib/prometheus/alerts.yml names and grades it.
        #expect(labels["severity"] == "warning")
        #expect(labels["path"] == "Library/Caches/Feed" && labels["rule"] == "Library/Caches/*")
        #expect(labels["root"] == "/srv/app" && labels["source"] == "quotawatch-hook")
        #expect(labels["host"]?.isEmpty == false)
        let annotations = try #require(breach["annotations"] as? [String: String])
        #expect(annotations["limit"] == "200000000")
        #expect(annotations["summary"]?.hasPrefix("quota_breach Library/Caches/Feed") == true)
        #expect(breach["startsAt"] as? String == "2026-12-01T23:00:00.000Z")
        // The breach stays active; the same rule's warning and forecast end now.
        let breachEnd = try #require(breach["endsAt"] as? String)
        for name in ["QuotaWatchQuotaWarning", "QuotaWatchForecastBreach"] {
            let other = try #require(byName[name])
            #expect((other["labels"] as? [String: String])?["rule"] == "Library/Caches/*")
            #expect(try #require(other["endsAt"] as? String) < breachEnd)
        }
    }

    @Test(
        "alertmanager.sh fails the run, with curl's message, when the endpoint answers an error",
        .enabled(if: installed("curl"), "curl is not installed: apt-get install curl"),
        .enabled(if: installed("python3"), "python3 is not installed: apt-get install python3"))
    func alertmanagerError() throws {
        let receiver = try FakeAlertmanager(status: 500)
        let reports = HookReports()
        let hook = HookSpec(
            name: "alertmanager",
            command: [Array("\(Self.scripts)/alertmanager.sh".utf8), Array("http://127.0.0.1:\(receiver.port)".utf8)])
        let runner = try HookRunner(
            hooks: [hook], environment: [(name: "PATH", value: Self.daemonPath)], onFailure: reports.onFailure)
        defer { runner.stop() }
        runner.submit(hookEvent("level", path: nil))
        let failure = try #require(try reports.waitForFailures(1).first)
        #expect(failure.exitStatus == 22)
        #expect(String(decoding: failure.standardErrorTail, as: UTF8.self).contains("500"))
    }

    @Test("notify.sh sends a desktop notification through notify-send when a session bus is there")
    func notifyDesktop() throws {
        let tree = try TempTree(prefix: "quotawatch-notify")
        try tree.makeDirectory("bin")
        try tree.makeDirectory("runtime")
        // A stand-in notify-send that records its arguments, one per line.
        let stub = "#!/bin/sh\nfor argument; do echo \"$argument\"; done >\"\(tree.absolutePath("notified"))\"\n"
        try tree.writeFile("bin/notify-send", contents: Array(stub.utf8), mode: 0o755)
        let bus = try UnixSocket.listen(at: tree.absoluteBytes("runtime/bus"))
        defer { bus.close() }

        let reports = HookReports()
        let hook = HookSpec(name: "notify", command: [Array("\(Self.scripts)/notify.sh".utf8)])
        let environment = [
            (name: "PATH", value: "\(tree.absolutePath("bin")):\(Self.daemonPath)"),
            (name: "XDG_RUNTIME_DIR", value: tree.absolutePath("runtime")),
        ]
        let runner = try HookRunner(
            hooks: [hook], environment: environment, onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_breach", path: "Library/Caches/Feed", allocated: 4096))
        #expect(try reports.waitForRuns(1).first?.failure == nil)
        let arguments = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("notified"))), as: UTF8.self
        )
        .split(separator: "\n").map(String.init)
        #expect(arguments.contains("--urgency=critical"))
        #expect(arguments.contains("QuotaWatch: quota_breach"))
        #expect(arguments.last?.hasPrefix("quota_breach Library/Caches/Feed allocated=") == true)
    }

    @Test("notify.sh without a desktop prints its line where stdout is configured to go")
    func notifyLine() throws {
        let tree = try TempTree(prefix: "quotawatch-notify")
        try tree.makeDirectory("runtime")
        let reports = HookReports()
        let hook = HookSpec(
            name: "notify", command: [Array("\(Self.scripts)/notify.sh".utf8)],
            standardOutput: .file(tree.absoluteBytes("notify.log")))
        let environment = [
            (name: "PATH", value: Self.daemonPath), (name: "XDG_RUNTIME_DIR", value: tree.absolutePath("runtime")),
        ]
        let runner = try HookRunner(
            hooks: [hook], environment: environment, onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("leftover", path: "tmp/CFNetworkDownload_A1.tmp", allocated: 0))
        #expect(try reports.waitForRuns(1).first?.failure == nil)
        let log = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("notify.log"))), as: UTF8.self)
        #expect(log.hasPrefix("quotawatch: leftover tmp/CFNetworkDownload_A1.tmp allocated=0"))
    }

    /// The words of a notify.sh line: bare, or in double quotes with `\\` and `\"` inside.
    private static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        var inWord = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else if character == "\"" {
                quoted = true
                inWord = true
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test(
        "the shipped hook scripts pass shellcheck",
        .enabled(if: installed("shellcheck"), "shellcheck is not installed: apt-get install shellcheck"))
    func shellcheckClean() throws {
        let result = try ProcessRunner.run(
            "shellcheck", ["\(Self.scripts)/notify.sh", "\(Self.scripts)/alertmanager.sh"])
        #expect(result.exitStatus == 0, "\(result)")
    }

    @Test("a hostile name cannot forge a field or a line of notify.sh's notification")
    func notifyHostileName() throws {
        let tree = try TempTree(prefix: "quotawatch-notify")
        try tree.makeDirectory("runtime")
        let reports = HookReports()
        let hook = HookSpec(
            name: "notify", command: [Array("\(Self.scripts)/notify.sh".utf8)],
            standardOutput: .file(tree.absoluteBytes("notify.log")))
        let environment = [
            (name: "PATH", value: Self.daemonPath), (name: "XDG_RUNTIME_DIR", value: tree.absolutePath("runtime")),
        ]
        let runner = try HookRunner(
            hooks: [hook], environment: environment, onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        let path = Array("Caches/x limit=1 \"q\\\" level=critical\nQUOTAWATCH_LIMIT=9\u{1b}[2J<b>".utf8)
        let event = PolicyEvent(
            .quota(
                state: .breach, path: path, used: 4096, size: .allocated, limit: 1000, effectiveLimit: 1000,
                rule: "Caches/*", level: .normal),
            time: WallTime(millisecondsSinceEpoch: 0))
        runner.submit(event.hookEvent(root: "/r"))
        #expect(try reports.waitForRuns(1).first?.failure == nil)
        let log = try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("notify.log")))
        #expect(HostileNames.rawControls(in: Array(log)).isEmpty, "\(String(decoding: log, as: UTF8.self))")
        let lines = String(decoding: log, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(lines)")
        let words = Self.words(String(lines[0]))
        #expect(Array(words.prefix(2)) == ["quotawatch:", "quota_breach"], "\(words)")
        #expect(words.count > 2 && words[2] == HumanText.name(path), "the path is one word: \(words)")
        let keys = words.dropFirst(3).map { String($0.prefix { $0 != "=" }) }
        #expect(keys == ["allocated", "effective_limit", "level", "limit", "root", "rule"], "\(words)")
        #expect(words.contains("level=normal") && words.contains("rule=Caches/*"), "\(words)")
    }

    @Test("QUOTAWATCH_PATH is the path as people see it, with no newline; QUOTAWATCH_PATH_RAW its bytes")
    func pathVariables() throws {
        let tree = try TempTree(prefix: "quotawatch-hookpath")
        let reports = HookReports()
        let script =
            "printf %s \"$QUOTAWATCH_PATH\" > \(tree.absolutePath("shown")); "
            + "printf %s \"$QUOTAWATCH_PATH_RAW\" > \(tree.absolutePath("raw"))"
        let hook = HookSpec(name: "paths", command: [Array("sh".utf8), Array("-c".utf8), Array(script.utf8)])
        let runner = try HookRunner(
            hooks: [hook], environment: [(name: "PATH", value: Self.daemonPath)], onFailure: reports.onFailure,
            onRun: reports.onRun)
        defer { runner.stop() }
        let path: [UInt8] = Array("Caches/a\nQUOTAWATCH_LIMIT=1\u{1b}".utf8) + [0xff]
        let event = PolicyEvent(
            .leftover(path: path, allocated: 1, idle: .seconds(5), rule: "r"), time: WallTime(millisecondsSinceEpoch: 0)
        )
        runner.submit(event.hookEvent(root: "/r"))
        #expect(try reports.waitForRuns(1).first?.failure == nil)
        let shown = try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("shown")))
        #expect(String(decoding: shown, as: UTF8.self) == #"Caches/a\x0aQUOTAWATCH_LIMIT=1\x1b\xff"#)
        let raw = try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("raw")))
        #expect(Array(raw) == path)
    }
}

/// A python3 HTTP server on 127.0.0.1 standing in for Alertmanager: it records each request's
/// path and body and answers with a fixed status.
final class FakeAlertmanager {
    let port: Int
    private let process: Process
    private let log: TempTree

    struct Request {
        var path: String
        var body: Data
    }

    init(status: Int = 200) throws {
        log = try TempTree(prefix: "quotawatch-alertmanager")
        let server = #"""
            import http.server, json, sys
            log, status = sys.argv[1], int(sys.argv[2])
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    with open(log, "a") as out:
                        out.write(json.dumps({"path": self.path, "body": body.decode("latin-1")}) + "\n")
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *arguments):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """#
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", server, log.absolutePath("requests"), String(status)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The first line is the port; end-of-file instead means python3 failed to start.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw HookReports.Timeout(
                description: "the fake Alertmanager did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
    }

    deinit {
        // SIGKILL, not terminate(): Foundation's Process starts its child with the signal mask
        // of a dispatch thread, where SIGTERM is blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: log.absolutePath("requests")) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] ?? [:]
            return Request(path: object["path"] ?? "", body: Data((object["body"] ?? "").utf8))
        }
    }
}
