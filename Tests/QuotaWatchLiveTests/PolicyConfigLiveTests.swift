import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// `run --config` and SIGHUP, on real trees with the real daemon.
@Suite("config and SIGHUP in the live daemon")
struct PolicyConfigLiveTests {
    private let root = LiveFixture.root
    private var caches: TreePath { root / "Caches" }
    private let configPath: TreePath = "outside/quotawatch.yaml"

    /// Replaces the config file as an editor saving it would: a new file renamed over it.
    private func writeConfig(_ fixture: LiveFixture, limit: String) throws {
        try replaceConfig(fixture, "quotas:\n  - {path: 'Caches/*', limit: \(limit)}\n")
    }

    private func replaceConfig(_ fixture: LiveFixture, _ text: String) throws {
        let staged: TreePath = "outside/staged.yaml"
        try fixture.tree.writeFile(staged, contents: Array(text.utf8))
        try fixture.tree.rename(staged, to: configPath)
    }

    @Test("a bad config at start exits 65 with the file, line and column")
    func badConfigAtStart() throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(configPath, contents: Array("quotas:\n  - path: x\n    limit: 20XB\n".utf8))
        let path = fixture.tree.absolutePath(configPath)
        let result = try fixture.cli.run(["run", fixture.rootPath, "--socket", fixture.socketPath, "--config", path])
        #expect(result.exitStatus == 65, "\(result)")
        #expect(result.errorText.contains("\(path):3:12:"), "\(result)")
        let badOption = try fixture.cli.run(["run", fixture.rootPath, "--quota", "Caches/*"])
        #expect(badOption.exitStatus == 64 && badOption.errorText.contains("--quota"), "\(badOption)")
    }

    @Test("SIGHUP with a bad config keeps the old rules; with a good one applies the new limits, states kept")
    func reload() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for directory in [caches, caches / "a", caches / "b"] { try tree.makeDirectory(directory) }
        try writeConfig(fixture, limit: "100kB")
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(configPath)])

        try replaceConfig(fixture, "quotas:\n  - {path: 'Caches/*', limit: 20XB}\n")
        daemon.send(SIGHUP)
        let error = try daemon.waitForEvent("config_error")
        #expect(error.message?.contains("quotawatch.yaml:2:") == true, "\(error)")
        try daemon.waitForStandardError(containing: "not reloaded")
        try tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")

        try tree.writeFile(caches / "b" / "some", byteCount: 30_000)
        #expect(try daemon.quotas().row("Caches/b").state == .ok)
        try writeConfig(fixture, limit: "20kB")
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_reloaded")
        let breach = try daemon.waitForEvent("quota_breach", path: "Caches/b")
        #expect(breach.effectiveLimit == 20_000, "\(breach)")
        let quotas = try daemon.quotas()
        #expect(try quotas.row("Caches/a").limit == 20_000)
        #expect(daemon.events("quota_breach", where: { $0.path == "Caches/a" }).count == 1, "no flap on reload")
        try fixture.stopCleanly()
    }
}

/// Disk levels for real: a small tmpfs in a private mount namespace, filled from inside it.
@Suite("disk levels in the live daemon")
struct DiskLevelLiveTests {
    private let root = LiveFixture.root

    /// Why a tmpfs cannot be mounted in a private mount namespace here, or nil.
    static let unavailableReason: String? = {
        for tool in ["unshare", "nsenter", "mount"] where ProcessRunner.findExecutable(tool) == nil {
            return "\(tool) (util-linux) is not installed"
        }
        let probe = try? ProcessRunner.run(
            "unshare",
            [
                "-m", "sh", "-c",
                #"d=$(mktemp -d) && mount -t tmpfs -o size=1m none "$d" && umount "$d"; r=$?; rmdir "$d"; exit $r"#,
            ])
        guard let probe else { return "unshare could not be run" }
        guard probe.exitStatus == 0 else {
            return "cannot mount a tmpfs in a private mount namespace: \(probe.errorText)"
        }
        return nil
    }()

    /// Runs `script` with sh in the daemon's mount namespace, where ROOT is the tmpfs.
    private func inside(_ daemon: Daemon, _ script: String) throws {
        let result = try ProcessRunner.run(
            "nsenter", ["-t", "\(daemon.processID)", "-m", "sh", "-c", script, "sh", daemon.root])
        guard result.exitStatus == 0 else { throw DaemonError("inside the namespace: \(script)", result: result) }
    }

    @Test(
        "filling the disk raises the level, and every quota is re-checked at the level's scale",
        .enabled(if: unavailableReason == nil, "needs 'unshare -m' and permission to mount a tmpfs"))
    func levelChangeRescales() throws {
        let fixture = try LiveFixture()
        let wrapper = [
            "unshare", "-m", "sh", "-c",
            "mount -t tmpfs -o size=64m none '\(fixture.rootPath)' && exec \"$0\" \"$@\"",
        ]
        let daemon = try fixture.start(
            options: ["--quota", "Caches/*=24MB", "--level-free", "50%,25%"], wrapper: wrapper)
        try inside(daemon, #"mkdir -p "$1/Caches/a" "$1/Caches/b" && head -c 12000000 /dev/zero > "$1/Caches/b/f""#)
        let start = try daemon.quotas()
        #expect(start.level.level == .normal && start.level.total == 64 << 20, "\(start.level)")
        #expect(try start.row("Caches/b").state == .ok)

        // Another process fills the disk: 40 MB in a, leaving under 25 % free.
        try inside(daemon, #"head -c 40000000 /dev/zero > "$1/Caches/a/fill""#)
        let level = try daemon.waitForEvent("level", description: "to critical") { $0.to == "critical" }
        #expect((level.free ?? .max) < 16 << 20, "\(level)")
        // Nothing wrote to b: its 12 MB breaches 24 MB × 0.4.
        let breach = try daemon.waitForEvent("quota_breach", path: "Caches/b")
        #expect(breach.level == "critical" && breach.effectiveLimit == 9_600_000, "\(breach)")
        let quotas = try daemon.quotas()
        #expect(quotas.level.level == .critical)
        #expect(try quotas.row("Caches/b").effectiveLimit == 9_600_000)

        try inside(daemon, #"rm "$1/Caches/a/fill""#)
        try daemon.waitForEvent("level", description: "back to normal") { $0.to == "normal" }
        try daemon.waitForEvent("quota_ok", path: "Caches/b")
        try fixture.stopCleanly()
    }
}
