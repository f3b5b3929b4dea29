import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// `run --metrics-listen` and `--metrics-textfile` with the real binary on real trees.
@Suite("Prometheus metrics in the live daemon")
struct MetricsLiveTests {
    private let root = LiveFixture.root

    /// A tree with quota directories, a top-level name that is not UTF-8 and one with a quote
    /// and a newline, built before the daemon starts so that it stays quiet.
    private func fixture() throws -> LiveFixture {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "Caches")
        try tree.makeDirectory(root / "Caches" / "a")
        try tree.makeDirectory(root / "Caches" / "b")
        try tree.writeFile(root / "Caches" / "a" / "blob", byteCount: 60_000)
        try tree.writeFile(root / "Caches" / "b" / "small", byteCount: 3_000)
        try tree.makeDirectory(TreePath(components: root.components + [[0x77, 0xff, 0x5c]]))
        try tree.makeDirectory(TreePath(components: root.components + [Array("say \"hi\"\nthere".utf8)]))
        try tree.writeFile(root / "top-file", byteCount: 5_000)
        return fixture
    }

    /// The port `run` printed on stderr for `--metrics-listen HOST:0`.
    private func metricsPort(_ daemon: Daemon) throws -> Int {
        try daemon.waitForStandardError(containing: "/metrics\n")
        let pattern = try NSRegularExpression(pattern: #"metrics at http://[^ ]*:([0-9]+)/metrics"#)
        let text = daemon.errorText
        guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text), let port = Int(text[range])
        else { throw DaemonError("no metrics port on stderr", daemon: daemon) }
        return port
    }

    /// `status --quotas --json` without --sync: a sync's marker file would change the tree.
    private func quotasWithoutSync(_ daemon: Daemon) throws -> QuotaReply {
        let result = try daemon.statusCommand([
            "status", daemon.root, "--socket", daemon.socketPath, "--quotas", "--json",
        ])
        guard result.exitStatus == 0 else {
            throw DaemonError("status --quotas failed", daemon: daemon, result: result)
        }
        return try JSONDecoder().decode(QuotaReply.self, from: Data(result.standardOutput))
    }

    @Test("every line of /metrics parses as the exposition format, and its values are status --json's")
    func metricsMatchStatus() throws {
        let fixture = try fixture()
        let textfile = fixture.tree.absolutePath("run/quotawatch.prom")
        let daemon = try fixture.start(options: [
            "--quota", "Caches/*=50kB", "--metrics-listen", "127.0.0.1:0", "--metrics-textfile", textfile,
            "--metrics-interval", "1",
        ])
        let port = try metricsPort(daemon)
        // Answered by the engine loop, which starts after the exporter's first snapshot.
        let status = try daemon.status(sync: false)
        // This root's samples: the daemon may serve sibling roots too (SiblingRoots).
        let mine = ["root": status.report.root]
        let quotas = try quotasWithoutSync(daemon)

        let response = try HTTPGet.request(port: port, path: "/metrics")
        #expect(response.status == 200, "\(response)")
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let metrics = try PrometheusExposition(response.text)
        try expectPromtoolAccepts(response.text)

        #expect(metrics.value("quotawatch_ready", mine) == 1)
        #expect(metrics.value("quotawatch_watcher_up", mine) == 1)
        #expect(metrics.value("quotawatch_root_info", mine) == 1)
        let rows = status.report.directoriesByPath
        let rootRow = try #require(rows["."])
        #expect(metrics.value("quotawatch_root_allocated_bytes", mine) == Double(rootRow.allocated))
        #expect(metrics.value("quotawatch_root_apparent_bytes", mine) == Double(rootRow.apparent))
        #expect(metrics.value("quotawatch_root_files", mine) == Double(rootRow.files))
        #expect(metrics.value("quotawatch_root_directories", mine) == Double(rootRow.dirs))
        // Top-level directories and quota directories, each once, as status names them.
        let expected = rows.values.filter { row in
            row.path != "." && (!row.path.contains("/") || row.path.hasPrefix("Caches/"))
        }
        let exported = metrics.samples("quotawatch_directory_allocated_bytes").filter {
            $0.labels["root"] == mine["root"]
        }
        #expect(Set(exported.compactMap { $0.labels["path"] }) == Set(expected.map(\.path)))
        for row in expected {
            #expect(
                metrics.value("quotawatch_directory_allocated_bytes", mine.merging(["path": row.path]) { $1 })
                    == Double(row.allocated),
                "\(ReportComparison.show(row.path))")
            #expect(
                metrics.value("quotawatch_directory_apparent_bytes", mine.merging(["path": row.path]) { $1 })
                    == Double(row.apparent),
                "\(ReportComparison.show(row.path))")
        }
        #expect(metrics.value("quotawatch_watches", mine) == Double(status.engine.watches))
        #expect(metrics.value("quotawatch_overflows_total", mine) == Double(status.engine.overflows))
        #expect(metrics.value("quotawatch_relisted_directories_total", mine) == Double(status.engine.rescannedDirs))
        #expect(metrics.value("quotawatch_watcher_degraded", mine) == 0)

        #expect(
            metrics.samples("quotawatch_quota_limit_bytes").filter { $0.labels["root"] == mine["root"] }.count
                == quotas.quotas.count)
        for row in quotas.quotas {
            let labels = mine.merging(["path": row.path, "rule": row.rule]) { $1 }
            #expect(metrics.value("quotawatch_quota_limit_bytes", labels) == Double(row.limit))
            #expect(metrics.value("quotawatch_quota_effective_limit_bytes", labels) == Double(row.effectiveLimit))
            #expect(metrics.value("quotawatch_quota_used_bytes", labels) == row.used.map { Double($0) })
            #expect(metrics.value("quotawatch_quota_breached", labels) == (row.state == .breach ? 1 : 0))
            #expect(metrics.value("quotawatch_quota_state", labels.merging(["state": row.state.rawValue]) { $1 }) == 1)
        }
        #expect(try quotas.row("Caches/a").state == .breach)
        #expect(metrics.value("quotawatch_quota_breaches_total", mine) == 1)
        #expect(metrics.value("quotawatch_level", mine.merging(["level": quotas.level.level.rawValue]) { $1 }) == 1)
        #expect(metrics.value("quotawatch_filesystem_size_bytes", mine) == quotas.level.total.map { Double($0) })

        // HEAD answers like GET without a body; any other path is 404.
        let head = try HTTPGet.request("HEAD", port: port, path: "/metrics")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try HTTPGet.request(port: port, path: "/").status == 404)

        // The textfile: complete, and after a clean stop the snapshot the endpoint served.
        try fixture.stopCleanly()
        let file = try PrometheusExposition(try String(contentsOfFile: textfile, encoding: .utf8))
        #expect(file.value("quotawatch_ready", mine) == 1)
        #expect(file.value("quotawatch_root_allocated_bytes", mine) == Double(rootRow.allocated))
        #expect(
            file.samples("quotawatch_directory_allocated_bytes").filter { $0.labels["root"] == mine["root"] }.count
                == exported.count)
        #expect(!FileManager.default.fileExists(atPath: textfile + ".tmp"), "the temporary file was renamed")
    }

    @Test("a real Prometheus scrapes the daemon: values match status, and a breach after a write appears")
    func prometheusScrapes() throws {
        guard PrometheusServer.executable != nil else {
            print("skipped: the prometheus package is not installed (apt-get install prometheus)")
            return
        }
        let fixture = try fixture()
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB", "--metrics-listen", "127.0.0.1:0"])
        let port = try metricsPort(daemon)
        let status = try daemon.status(sync: false)
        let rootAllocated = try #require(status.report.directoriesByPath["."]).allocated

        let storage = try TempTree(prefix: "qw-prometheus")
        let prometheus = try PrometheusServer(
            scraping: "127.0.0.1:\(port)", ruleFiles: [Self.alertsFile], in: storage)
        defer { prometheus.stop() }
        try prometheus.waitFor(#"up{job="quotawatch"}"#) { $0.first?.value == 1 }
        try prometheus.waitFor("quotawatch_root_allocated_bytes") { $0.first?.value == Double(rootAllocated) }
        let limit = try prometheus.query(#"quotawatch_quota_limit_bytes{path="Caches/a"}"#)
        #expect(limit.first?.value == 100_000, "\(limit)")
        #expect(try prometheus.query(#"quotawatch_quota_breached{path="Caches/a"}"#).first?.value == 0)
        // A quota's families share their labels: the share of the limit in use needs no ignoring(...).
        let share = try prometheus.query(
            #"quotawatch_quota_used_bytes{path="Caches/a"} / quotawatch_quota_effective_limit_bytes{path="Caches/a"}"#)
        #expect(share.count == 1 && (share.first?.value ?? 0) > 0, "\(share)")
        let odd = try prometheus.query(#"quotawatch_directory_allocated_bytes{path="w\\xff\\\\"}"#)
        #expect(odd.count == 1, "a name that is not UTF-8 keeps its escaped label through Prometheus: \(odd)")

        try fixture.tree.writeFile(root / "Caches" / "a" / "more", byteCount: 80_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try prometheus.waitFor(#"quotawatch_quota_breached{path="Caches/a"}"#) { $0.first?.value == 1 }
        try prometheus.waitFor("quotawatch_quota_breaches_total") { $0.first?.value == 1 }
        try prometheus.waitFor(#"quotawatch_quota_state{path="Caches/a",state="breach"}"#) { $0.first?.value == 1 }
        // The shipped rule sees it: pending until its `for:` has passed, labelled with the
        // root and host as alertmanager.sh labels its own alert for it.
        let host = try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try prometheus.waitFor(#"ALERTS{alertname="QuotaWatchQuotaBreach"}"#) { samples in
            samples.contains {
                $0.labels["path"] == "Caches/a" && $0.labels["alertstate"] == "pending"
                    && $0.labels["root"] == status.report.root && $0.labels["host"] == host
            }
        }
        // A daemon that is down is an alert too: the rules above go silent with it.
        try fixture.stopCleanly()
        try prometheus.waitFor(#"up{job="quotawatch"}"#) { $0.first?.value == 0 }
        try prometheus.waitFor(#"ALERTS{alertname="QuotaWatchDown"}"#) { samples in
            samples.contains { $0.labels["alertstate"] == "pending" }
        }
        prometheus.stop()
    }

    @Test("promtool accepts the shipped alert rules")
    func alertRulesAreValid() throws {
        guard let promtool = ProcessRunner.findExecutable("promtool") else {
            print("skipped: promtool is not installed (it comes with the prometheus package)")
            return
        }
        let result = try ProcessRunner.run(promtool, ["check", "rules", Self.alertsFile])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains("SUCCESS: 8 rules found"), "\(result)")
        for alert in [
            "QuotaWatchQuotaBreach", "QuotaWatchDiskCritical", "QuotaWatchForecastBreach", "QuotaWatchWatcherDegraded",
            "QuotaWatchRepeatedOverflows", "QuotaWatchDown", "QuotaWatchAbsent",
        ] {
            #expect(try String(contentsOfFile: Self.alertsFile, encoding: .utf8).contains("alert: \(alert)"))
        }
    }

    @Test("a port in use, a textfile that cannot be written: exit 1 naming the problem and the fix")
    func startFailures() throws {
        let fixture = try fixture()
        let first = try fixture.start(options: ["--metrics-listen", "127.0.0.1:0"])
        let port = try metricsPort(first)
        let other = fixture.tree.absolutePath("run/other.sock")
        let taken = try fixture.cli.run([
            "run", fixture.rootPath, "--socket", other, "--metrics-listen", "127.0.0.1:\(port)",
        ])
        #expect(taken.exitStatus == 1, "\(taken)")
        #expect(taken.errorText.contains("cannot listen on 127.0.0.1:\(port)"), "\(taken)")
        #expect(taken.errorText.contains("pick another port"), "\(taken)")

        let missing = fixture.tree.absolutePath("no-such-dir/q.prom")
        let unwritable = try fixture.cli.run([
            "run", fixture.rootPath, "--socket", other, "--metrics-textfile", missing,
        ])
        #expect(unwritable.exitStatus == 1, "\(unwritable)")
        #expect(unwritable.errorText.contains("cannot write the metrics file '\(missing)'"), "\(unwritable)")
        #expect(unwritable.errorText.contains("its directory must exist"), "\(unwritable)")
        try fixture.stopCleanly()
    }

    @Test(
        "bad metrics options exit 64 naming the value",
        arguments: [
            (["--metrics-listen", "metrics.example:9187"], "other names are not resolved"),
            (["--metrics-listen", "9187"], "or :PORT for every address"),
            (["--metrics-listen", "127.0.0.1"], "has no port"),
            (["--metrics-listen", "127.0.0.1:99999"], "not a number from 0 to 65535"),
            (["--metrics-listen", "::1:9187"], "in brackets"),
            (["--metrics-textfile", "quotawatch.txt"], "reads only files named *.prom"),
            (["--metrics-interval", "0"], "'--metrics-interval'"),
        ])
    func badOptions(options: [String], message: String) throws {
        let fixture = try LiveFixture()
        let result = try fixture.cli.run(["run", fixture.rootPath, "--socket", fixture.socketPath] + options)
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains(message), "\(result)")
        #expect(result.errorText.contains(options[1]), "\(result)")
    }

    /// `promtool check metrics` on the text, where promtool is installed: Prometheus's own
    /// parser and its naming lints.
    private func expectPromtoolAccepts(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard ProcessRunner.findExecutable("promtool") != nil else {
            print("skipped: promtool is not installed; the test's own strict reader checked the format")
            return
        }
        let scratch = try TempTree(prefix: "qw-promtool")
        try scratch.writeFile("metrics.txt", contents: Array(text.utf8))
        let result = try ProcessRunner.run(
            "/bin/sh", ["-c", "promtool check metrics < \"$0\"", scratch.absolutePath("metrics.txt")])
        #expect(result.exitStatus == 0, "\(result)", sourceLocation: sourceLocation)
    }

    /// The shipped rules file, found from this source file's place in the repository.
    static let alertsFile: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("contrib/prometheus/alerts.yml").path
    }()
}
