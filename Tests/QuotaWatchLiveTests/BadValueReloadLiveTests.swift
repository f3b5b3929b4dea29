import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Bad and extreme values on a running daemon: a SIGHUP with a value that overflowed (and
/// killed the daemon) is a `config_error` naming the value, with the old rules kept; the
/// largest and the smallest values every key allows run, and the daemon keeps answering.
@Suite("bad and extreme config values in the live daemon")
struct BadValueReloadLiveTests {
    private let root = LiveFixture.root
    private let configPath: TreePath = "outside/quotawatch.yaml"

    /// Replaces the config file as an editor saving it would: a new file renamed over it.
    private func replaceConfig(_ fixture: LiveFixture, _ text: String) throws {
        let staged: TreePath = "outside/staged.yaml"
        try fixture.tree.writeFile(staged, contents: Array(text.utf8))
        try fixture.tree.rename(staged, to: configPath)
    }

    @Test("SIGHUP with a bad value keeps the daemon running with the old rules and names the value")
    func badReloads() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for directory in [root / "Caches", root / "Caches" / "a"] { try tree.makeDirectory(directory) }
        let good = "quotas:\n  - {path: 'Caches/*', limit: 100kB}\n"
        try replaceConfig(fixture, good)
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(configPath)])

        let bad: [(String, String)] = [
            ("leftovers: {age: 999999999999d}\n", "999999999999d"),
            ("activity_half_life: 106751991168d\n", "106751991168d"),
            ("levels: {check: {normal: 999999999999d}}\n", "999999999999d"),
            ("periodic: {warning: 106751991168d}\n", "106751991168d"),
            ("history: {keep: 106751991168d}\n", "106751991168d"),
            ("forecast: {horizon: 9223372036854775807ms}\n", "9223372036854775807ms"),
            ("hooks:\n  - {command: [x], timeout: 999999999999d}\n", "999999999999d"),
            ("quotas:\n  - {path: 'Caches/*', limit: 100kB, warning: 0x1p-1}\n", "0x1p-1"),
            ("quotas:\n  - {path: 'Caches/*', limit: 18446744073709551616}\n", "18446744073709551616"),
            ("leftovers: {age: 0s}\n", "0s"),
            ("levels: {check: {critical: 0.0001ms}}\n", "0.0001ms"),
        ]
        for (index, (yaml, value)) in bad.enumerated() {
            try replaceConfig(fixture, yaml.hasPrefix("quotas:") ? yaml : good + yaml)
            daemon.send(SIGHUP)
            let error = try daemon.waitForEvent("config_error", count: index + 1)
            #expect(error.message?.contains("'\(value)'") == true, "\(yaml): \(error)")
            #expect(error.message?.contains(" to ") == true, "the range is not named: \(error)")
            _ = try daemon.status(sync: false)
        }
        try daemon.waitForStandardError(containing: "'0.0001ms'")
        #expect(daemon.events("config_reloaded").isEmpty)

        // The rules in force are the first file's.
        try tree.writeFile(root / "Caches" / "a" / "big", byteCount: 150_000)
        let breach = try daemon.waitForEvent("quota_breach", path: "Caches/a")
        #expect(breach.effectiveLimit == 100_000, "\(breach)")
        try fixture.stopCleanly()
    }

    @Test("the largest values every key allows run at start and the smallest on SIGHUP; the daemon answers")
    func extremes() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for directory in [root / "a", root / "a" / "x", root / "b", root / "b" / "x", root / "tmp"] {
            try tree.makeDirectory(directory)
        }
        let state = try TempTree(prefix: "qw-extremes-state")
        try replaceConfig(fixture, BadValueCorpus.largestConfig)
        let daemon = try fixture.start(
            options: ["--config", tree.absolutePath(configPath), "--leftover-after", "36500d"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        try tree.writeFile(root / "a" / "x" / "f", byteCount: 10_000)
        #expect(try daemon.status().report.directories.first { $0.path == "." }?.files == 1)
        #expect(try daemon.quotas().quotas.count >= 2)
        try expectCleanNow(fixture)

        try replaceConfig(fixture, BadValueCorpus.smallestConfig)
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_reloaded")
        for index in 0..<20 { try tree.writeFile(root / "b" / "x" / "f\(index)", byteCount: 5000) }
        #expect(try daemon.status().report.directories.first { $0.path == "." }?.files == 21)
        #expect(try daemon.quotas().quotas.count >= 2)
        try expectCleanNow(fixture)
        try fixture.stopCleanly()
    }

    /// Every cleaner over the whole tree, targets computed from the extreme limits and ratios.
    private func expectCleanNow(_ fixture: LiveFixture) throws {
        let result = try fixture.cli.run(["clean-now", fixture.rootPath, "--socket", fixture.socketPath, "--json"])
        #expect(result.exitStatus == 0, "\(result)")
    }
}
