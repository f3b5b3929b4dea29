import Foundation
import QuotaWatchTestSupport
import Testing

/// The Python client in contrib/python and its example cleaner, against the live daemon.
extension RegisteredCleanerLiveTests {
    private static let python = ProcessRunner.findExecutable("python3")

    @Test(
        "the Python client and its example cleaner clean where the config's 'registered' entry puts them",
        .enabled(
            if: python != nil, "python3 is not installed: install Debian's python3 to run the Python client's test"))
    func pythonClient() throws {
        let setup = try Setup()
        let tree = setup.fixture.tree
        let cache = root / "Caches" / "py"
        try makeOldFiles(tree, cache, count: 5, bytes: 20_000)
        // Under the limit but above the target: a manual run gives the cleaner its quota directory.
        let daemon = try setup.start(
            config: "quotas:\n  - {path: 'Caches/*', limit: 110kB}\ncleaners: [registered, leftovers, evict]\n")
        // The example removes the oldest until under the target: 78 % of 110 kB less a byte.
        var used = try allocated(tree, cache)
        var expected: [String] = []
        for index in 1...5 {
            used += try allocated(tree, cache / "f\(index)")
        }
        for index in 1...5 where used > 110_000 * 78 / 100 - 1 {
            used -= try allocated(tree, cache / "f\(index)")
            expected.append("Caches/py/f\(index)")
        }
        let contrib = try Self.contribPython()
        let script = """
            import json, socket, sys
            sys.path.insert(0, \(Self.pythonString(contrib)))
            from quotawatch_client import RegisteredCleaner
            from example_cleaner import make_handler
            cleaner = RegisteredCleaner(\(Self.pythonString(setup.fixture.socketPath)), "py", ["Caches/py"], timeout_ms=20000)
            rows = cleaner.quotas(sync=True)["quotas"]
            clean = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            clean.settimeout(60)
            clean.connect(\(Self.pythonString(setup.fixture.socketPath)))
            clean.sendall(b'{"command":"clean","trigger":"python"}\\n')
            cleaner._socket.settimeout(60)
            events = []
            cleaner.serve(make_handler(\(Self.pythonString(setup.fixture.rootPath)), 0, lambda text: None),
                          on_event=lambda event: events.append(event["event"]),
                          stop=lambda message: message.get("event") == "cleanup")
            print(json.dumps({"rows": rows, "events": events}))
            """
        let result = try ProcessRunner.run(Self.python!, ["-c", script])
        #expect(result.exitStatus == 0, "\(result)")
        let output = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any], "\(result)")
        let rows = output["rows"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["path"] as? String } == ["Caches/py"], "\(output)")
        #expect((output["events"] as? [String])?.last == "cleanup", "\(output)")

        let summary = try CleanupLine(try daemon.waitForEvent("cleanup"))
        #expect(summary.cleanerNames == ["py", "leftovers", "evict"], "\(summary.text)")
        #expect(!expected.isEmpty && summary.paths("py") == expected, "\(summary.text)")
        // Eviction, after it, counts what it removed as gone and has nothing left to do.
        #expect(summary.paths("evict").isEmpty, "\(summary.text)")
        for index in 1...5 {
            #expect(try tree.exists(cache / "f\(index)") == !expected.contains("Caches/py/f\(index)"))
        }
        try setup.fixture.expectLiveMatchesScan("after the Python cleaner's removal", du: true)
        try setup.fixture.stopCleanly()
    }

    /// contrib/python in the source tree, found from this file's path.
    private static func contribPython() throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("contrib/python").path
        guard FileManager.default.fileExists(atPath: path + "/quotawatch_client.py") else {
            throw DaemonError("contrib/python/quotawatch_client.py is not at \(path)")
        }
        return path
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
