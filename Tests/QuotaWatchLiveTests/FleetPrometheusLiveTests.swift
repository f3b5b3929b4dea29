import Foundation
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// The fleet files of `contrib/prometheus` against a real Prometheus (Debian's): a site server
/// scrapes two daemons with `fleet.yml` and `alerts.yml` loaded, and a global one federates
/// from it with the job of `federation.yml`. The recorded answers must be the daemons' own.
@Suite("The fleet rules on a real Prometheus, with federation")
struct FleetPrometheusLiveTests {
    private let root = LiveFixture.root

    private static func contrib(_ name: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("contrib/prometheus/\(name)").path
    }

    /// A daemon over an app sandbox (its three top directories turn the `ios-sandbox` leftover
    /// profile on) with one quota directory holding `bytes`.
    private func daemon(_ fixture: LiveFixture, holding bytes: Int) throws -> (Daemon, port: Int) {
        for name in ["Documents", "Library", "tmp", "Caches"] { try fixture.tree.makeDirectory(root / name) }
        try fixture.tree.makeDirectory(root / "Caches" / "a")
        try fixture.tree.writeFile(root / "Caches" / "a" / "blob", byteCount: bytes)
        let daemon = try fixture.start(options: [
            "--quota", "Caches/*=100kB", "--leftover-after", "1s", "--metrics-listen", "127.0.0.1:0",
        ])
        try daemon.waitForStandardError(containing: "/metrics\n")
        let text = daemon.errorText
        guard let range = text.range(of: #"metrics at http://[^ ]*:[0-9]+/metrics"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":").last?.split(separator: "/").first ?? "")
        else { throw DaemonError("no metrics port on stderr", daemon: daemon) }
        return (daemon, port)
    }

    private func quotaUsed(_ daemon: Daemon) throws -> UInt64 {
        let result = try daemon.statusCommand([
            "status", daemon.root, "--socket", daemon.socketPath, "--quotas", "--json",
        ])
        let reply = try JSONDecoder().decode(QuotaReply.self, from: Data(result.standardOutput))
        return try #require(try reply.row("Caches/a").used)
    }

    /// `federation.yml`'s job, pointed at `site` and scraped every second.
    private static func federationJob(site: Int) throws -> String {
        let shipped = try String(contentsOfFile: contrib("federation.yml"), encoding: .utf8)
        let jobs = try #require(shipped.range(of: "scrape_configs:\n")).upperBound
        return String(shipped[jobs...])
            .replacingOccurrences(
                of: #"- targets: \[.*\]"#, with: "- targets: ['127.0.0.1:\(site)']", options: .regularExpression
            )
            .replacingOccurrences(
                of: "job_name: quotawatch-federate\n",
                with: "job_name: quotawatch-federate\n    scrape_interval: 1s\n    scrape_timeout: 1s\n")
    }

    @Test("per root: quota use, the top of the fleet, breaches and leftovers, on the site and federated")
    func fleetAnswers() throws {
        guard PrometheusServer.executable != nil else {
            print("skipped: the prometheus package is not installed (apt-get install prometheus)")
            return
        }
        let (calm, busy) = (try LiveFixture(), try LiveFixture())
        let (calmDaemon, calmPort) = try daemon(calm, holding: 40_000)
        let (busyDaemon, busyPort) = try daemon(busy, holding: 150_000)
        try busyDaemon.waitForEvent("quota_breach", path: "Caches/a")
        let (calmRoot, busyRoot) = (calm.rootPath, busy.rootPath)

        let siteFiles = try TempTree(prefix: "qw-prometheus-site")
        let site = try PrometheusServer(
            scraping: ["127.0.0.1:\(calmPort)", "127.0.0.1:\(busyPort)"],
            ruleFiles: [Self.contrib("fleet.yml"), Self.contrib("alerts.yml")], in: siteFiles)
        defer { site.stop() }
        try site.waitFor(#"up{job="quotawatch"} == 1"#) { $0.count == 2 }
        // After the first scrape, so that the counter's increase is seen.
        try busy.tree.writeFile(root / "tmp" / "CFNetworkDownload_x.tmp", byteCount: 10_000)
        try busyDaemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_x.tmp")

        let used = [calmRoot: try quotaUsed(calmDaemon), busyRoot: try quotaUsed(busyDaemon)]
        print("quota use by root, from status: \(used)")
        try site.waitFor("host_root:quotawatch_quota_used_bytes:sum") { samples in
            samples.count == 2 && samples.allSatisfy { $0.value == Double(used[$0.labels["root"] ?? ""] ?? 0) }
        }
        let breached = try site.waitFor("host_root:quotawatch_quota_breached:sum") { $0.count == 2 }
        #expect(breached.first { $0.labels["root"] == busyRoot }?.value == 1, "\(breached)")
        #expect(breached.first { $0.labels["root"] == calmRoot }?.value == 0, "\(breached)")
        let top = try site.waitFor("fleet:quotawatch_quota_use_ratio:top10") { $0.count == 2 }
        let busiest = try #require(top.max { $0.value < $1.value })
        #expect(busiest.labels["root"] == busyRoot && busiest.labels["path"] == "Caches/a", "\(top)")
        #expect(abs(busiest.value - Double(used[busyRoot]!) / 100_000) < 1e-9, "\(top)")
        #expect(busiest.labels["host"] != nil && busiest.labels["host"] != "", "\(top)")
        try site.waitFor(#"host_root:quotawatch_leftovers:increase1h{root="\#(busyRoot)"} > 0"#) { $0.count == 1 }

        let globalFiles = try TempTree(prefix: "qw-prometheus-global")
        let global = try PrometheusServer(scrapeConfigs: try Self.federationJob(site: site.port), in: globalFiles)
        defer { global.stop() }
        try global.waitFor(#"up{job="quotawatch-federate"}"#) { $0.first?.value == 1 }
        let federated = try global.waitFor("host_root:quotawatch_quota_breached:sum") { $0.count == 2 }
        #expect(federated.first { $0.labels["root"] == busyRoot }?.value == 1, "\(federated)")
        try global.waitFor("fleet:quotawatch_quota_use_ratio:top10") { $0.count == 2 }
        let raw = try global.query("quotawatch_quota_used_bytes")
        #expect(raw.isEmpty, "federation carries the recorded fleet series, not every raw one: \(raw)")
    }

    @Test("amtool: the shipped Alertmanager config routes each root's alerts to its team")
    func alertmanagerRoutes() throws {
        guard let amtool = ProcessRunner.findExecutable("amtool") else {
            print("skipped: amtool is not installed (apt-get install prometheus-alertmanager)")
            return
        }
        let config = Self.contrib("alertmanager.yml")
        #expect(try ProcessRunner.run(amtool, ["check-config", config]).exitStatus == 0)
        for (labels, receiver) in [
            (["root=/home/alice", "severity=warning"], "storage-team"),
            (["root=/srv/apps/shop", "severity=critical"], "apps-pager"),
            (["root=/srv/apps/shop", "severity=warning"], "apps-team"),
            (["root=/var/cache", "severity=warning"], "ops"),
        ] {
            let result = try ProcessRunner.run(
                amtool, ["config", "routes", "test", "--config.file=\(config)"] + labels)
            #expect(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == receiver, "\(labels)")
        }
    }
}
