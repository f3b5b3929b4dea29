import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// scripts/hooks/alertmanager.sh, run by a live daemon, posting to a real Alertmanager.
@Suite("alertmanager.sh against a real Alertmanager")
struct AlertmanagerLiveTests {
    private let root = LiveFixture.root

    private static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("scripts/hooks/alertmanager.sh").path
    }()

    private static var unavailable: String? {
        if AlertmanagerServer.executable == nil {
            return
                "prometheus-alertmanager is not installed (scripts/test installs it: apt-get install prometheus-alertmanager)"
        }
        for tool in ["python3", "curl"] where ProcessRunner.findExecutable(tool) == nil {
            return "\(tool) is not installed, which alertmanager.sh needs"
        }
        return nil
    }

    private func alert(
        _ alerts: [AlertmanagerServer.Alert], _ name: String, rule: String? = nil
    ) -> [AlertmanagerServer.Alert] {
        alerts.filter { $0.labels["alertname"] == name && (rule == nil || $0.labels["rule"] == rule) }
    }

    @Test(
        "two rules on one directory: the looser rule's warning leaves the stricter's breach active; a leftover resolves when it goes",
        .enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func breachSurvivesTheOtherRulesWarning() throws {
        let storage = try TempTree(prefix: "qw-alertmanager")
        let alertmanager = try AlertmanagerServer(in: storage)
        defer { alertmanager.stop() }
        try alertmanager.waitFor("Alertmanager answering") { _ in true }

        let fixture = try LiveFixture()
        let tree = fixture.tree
        for name in ["Documents", "Library", "tmp"] { try tree.makeDirectory(root / name) }
        try tree.makeDirectories(root / "Caches" / "a")
        let config = """
            quotas:
              - path: 'Caches/*'
                limit: 100kB
              - path: 'Caches/a'
                limit: 400kB
            hooks:
              - name: alertmanager
                command: ['\(Self.script)', '\(alertmanager.baseURL)']
                events: [quota_warning, quota_breach, quota_ok, leftover, leftover_gone]

            """
        try tree.writeFile(LiveFixture.outside / "config.yaml", contents: Array(config.utf8))
        let daemon = try fixture.start(options: [
            "--config", tree.absolutePath(LiveFixture.outside / "config.yaml"), "--leftover-after", "1s",
        ])
        let strict = "Caches/*"
        let loose = "Caches/a"

        // 150 kB: past the strict rule's 100 kB, under 80 % of the loose rule's 400 kB.
        try tree.writeFile(root / "Caches" / "a" / "f1", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try alertmanager.waitFor("the strict rule's breach active") {
            !alert($0, "QuotaWatchQuotaBreach", rule: strict).isEmpty
        }
        // 350 kB: the loose rule's warning (past 320 kB); the strict rule stays in breach.
        try tree.writeFile(root / "Caches" / "a" / "f2", byteCount: 200_000)
        try daemon.waitForEvent("quota_warning", path: "Caches/a")
        let afterWarning = try alertmanager.waitFor("the loose rule's warning active") {
            !alert($0, "QuotaWatchQuotaWarning", rule: loose).isEmpty
        }
        let breach = alert(afterWarning, "QuotaWatchQuotaBreach", rule: strict)
        #expect(breach.count == 1, "the breach was resolved by the other rule's warning: \(afterWarning)")
        #expect(breach.first?.labels["root"] == fixture.rootPath, "\(breach)")
        #expect(breach.first?.labels["path"] == "Caches/a" && breach.first?.labels["severity"] == "warning")
        #expect(breach.first?.labels["source"] == "quotawatch-hook", "\(breach)")
        #expect(alert(afterWarning, "QuotaWatchQuotaWarning", rule: strict).isEmpty, "\(afterWarning)")
        print("Alertmanager after the warning: \(afterWarning)")

        // A leftover fires an alert; removed, its leftover_gone resolves it.
        try tree.writeFile(root / "tmp" / "CFNetworkDownload_x.tmp", byteCount: 10_000)
        try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_x.tmp")
        try alertmanager.waitFor("the leftover's alert active") {
            alert($0, "QuotaWatchLeftover").contains { $0.labels["path"] == "tmp/CFNetworkDownload_x.tmp" }
        }
        try tree.unlinkEntry(root / "tmp" / "CFNetworkDownload_x.tmp")
        try daemon.waitForEvent("leftover_gone", path: "tmp/CFNetworkDownload_x.tmp")
        try alertmanager.waitFor("the leftover's alert resolved") { alert($0, "QuotaWatchLeftover").isEmpty }

        // Emptied: each rule's quota_ok resolves its own alerts, both of them.
        try tree.truncateFile(root / "Caches" / "a" / "f1", to: 0)
        try tree.truncateFile(root / "Caches" / "a" / "f2", to: 0)
        let final = try alertmanager.waitFor("every quota alert resolved") { alerts in
            alerts.allSatisfy { $0.labels["alertname"]?.hasPrefix("QuotaWatchQuota") != true }
        }
        print("Alertmanager at the end: \(final)")
        try fixture.stopCleanly()
    }
}
