import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Alert hooks run by the live daemon, off its engine thread.
@Suite("alert hooks in the live daemon")
struct HookLiveTests {
    private let caches = LiveFixture.root / "Caches"

    /// Waits for a file a hook writes: nothing the daemon sends says when a hook's own output
    /// is complete, so this polls with a deadline.
    private func waitForFile(_ path: String, timeout: TimeInterval = 60) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") { return text }
            usleep(20_000)
        }
        throw DaemonError("the hook never wrote \(path)")
    }

    @Test("a hook gets the event on stdin and in QUOTAWATCH_* variables, and no descriptor of the daemon")
    func eventAndDescriptors() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(caches / "a")
        let out = tree.absolutePath(LiveFixture.outside)
        let script: TreePath = LiveFixture.outside / "hook.sh"
        try tree.writeFile(
            script,
            contents: Array(
                """
                #!/bin/sh
                ls /proc/self/fd > \(out)/fds.tmp && mv \(out)/fds.tmp \(out)/fds
                cat > \(out)/stdin.tmp && mv \(out)/stdin.tmp \(out)/stdin
                env | grep '^QUOTAWATCH_' | sort > \(out)/env.tmp && mv \(out)/env.tmp \(out)/env

                """.utf8), mode: 0o755)
        let daemon = try fixture.start(options: [
            "--quota", "Caches/*=100kB", "--hook", "quota_breach=\(tree.absolutePath(script))",
        ])
        try tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        // ls itself opens /proc/self/fd as descriptor 3; anything else came from the daemon.
        let fds = try waitForFile("\(out)/fds").split(separator: "\n").compactMap { Int($0) }
        #expect(Set(fds).isSubset(of: [0, 1, 2, 3]), "inherited descriptors: \(fds)")
        let stdin = try waitForFile("\(out)/stdin")
        #expect(stdin.contains(#""event":"quota_breach""#) && stdin.contains(#""path":"Caches/a""#), "\(stdin)")
        let environment = try waitForFile("\(out)/env")
        #expect(environment.contains("QUOTAWATCH_EVENT=quota_breach\n"), "\(environment)")
        #expect(environment.contains("QUOTAWATCH_PATH=Caches/a\n"), "\(environment)")
        #expect(environment.contains("QUOTAWATCH_LIMIT=100000\n"), "\(environment)")
        try fixture.stopCleanly()
    }

    @Test(
        "a hook starts with no signal blocked or ignored, though the daemon inherited some; a newline in the name is escaped in QUOTAWATCH_PATH",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash"), "needs /bin/bash to start the daemon"))
    func signalsAndPathOfAHook() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let name = caches.appending("a\nQUOTAWATCH_LIMIT=1")
        try tree.makeDirectories(name)
        let out = tree.absolutePath(LiveFixture.outside)
        let script: TreePath = LiveFixture.outside / "hook.sh"
        try tree.writeFile(
            script,
            contents: Array(
                """
                #!/bin/sh
                grep -E '^Sig(Blk|Ign):' /proc/self/status > \(out)/signals.tmp && mv \(out)/signals.tmp \(out)/signals
                printf '%s' "$QUOTAWATCH_PATH_RAW" > \(out)/raw
                printf '%s\\n' "$QUOTAWATCH_PATH" > \(out)/path.tmp && mv \(out)/path.tmp \(out)/path

                """.utf8), mode: 0o755)
        // Started as from a parent that ignores a real-time signal and SIGUSR2 (ignored
        // dispositions survive exec): the daemon has them ignored, its hooks must not.
        let daemon = try fixture.start(
            options: ["--quota", "Caches/*=100kB", "--hook", "quota_breach=\(tree.absolutePath(script))"],
            wrapper: ["/bin/bash", "-c", "trap '' 40 USR2; exec \"$0\" \"$@\""])
        try tree.writeFile(name / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a\nQUOTAWATCH_LIMIT=1")
        let signals = try waitForFile("\(out)/signals")
        #expect(signals.contains("SigBlk:\t0000000000000000\n"), "\(signals)")
        #expect(signals.contains("SigIgn:\t0000000000000000\n"), "\(signals)")
        let path = try waitForFile("\(out)/path")
        #expect(path == #"Caches/a\x0aQUOTAWATCH_LIMIT=1"# + "\n")
        let raw = try Data(contentsOf: URL(fileURLWithPath: "\(out)/raw"))
        #expect(String(decoding: raw, as: UTF8.self) == "Caches/a\nQUOTAWATCH_LIMIT=1")
        try fixture.stopCleanly()
    }

    @Test("a hook that hangs is killed with its group and reported; the daemon answers status meanwhile")
    func hangingHook() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(caches / "a")
        let out = tree.absolutePath(LiveFixture.outside)
        let config: TreePath = LiveFixture.outside / "quotawatch.yaml"
        try tree.writeFile(
            config,
            contents: Array(
                """
                quotas:
                  - path: "Caches/*"
                    limit: 100kB
                hooks:
                  - name: hang
                    command: ["sh", "-c", "echo $$ > \(out)/pid.tmp && mv \(out)/pid.tmp \(out)/pid; echo stuck >&2; sleep 600 & wait"]
                    events: [quota_breach]
                    timeout: 3s

                """.utf8))
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(config)])
        try tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        let hookProcess = try #require(
            Int32(try waitForFile("\(out)/pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        // The hook is running (it sleeps for minutes): the engine answers all the same.
        try tree.writeFile(caches / "a" / "more", byteCount: 1_000)
        let status = try daemon.syncStatus()
        let hookAliveAfterStatus = kill(hookProcess, 0) == 0
        #expect(status.report.directories.first { $0.path == "Caches/a" }?.files == 2, "the write during the hook")
        #expect(hookAliveAfterStatus, "status was answered while the hook still ran")
        let failure = try daemon.waitForEvent("hook_failed")
        #expect(failure.text.contains(#""hook":"hang""#), "\(failure)")
        #expect(failure.text.contains(#""failed_event":"quota_breach""#), "\(failure)")
        #expect(failure.text.contains("stuck"), "the end of its stderr: \(failure)")
        #expect(kill(hookProcess, 0) != 0, "the hook's shell is gone")
        try fixture.stopCleanly()
    }

    /// Polls `path` until it holds `text`: a hook's output has no event that says it is done.
    private func waitForText(_ text: String, in path: String, timeout: TimeInterval = 60) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let content = try? String(contentsOfFile: path, encoding: .utf8), content.contains(text) {
                return content
            }
            usleep(20_000)
        }
        let content = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(nothing)"
        throw DaemonError("\(path) never held \(text); it holds: \(content)")
    }

    @Test("a hook added by SIGHUP, or given a new kind, hears once of the breach that already stands")
    func hookAddedByReloadHearsStandingBreach() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(caches / "a")
        try tree.makeDirectories(caches / "b")
        let out = tree.absolutePath(LiveFixture.outside)
        let config: TreePath = LiveFixture.outside / "quotawatch.yaml"
        func writeConfig(_ hooks: String) throws {
            let staged: TreePath = LiveFixture.outside / "staged.yaml"
            try tree.writeFile(
                staged, contents: Array("quotas:\n  - {path: 'Caches/*', limit: 100kB}\nhooks:\n\(hooks)".utf8))
            try tree.rename(staged, to: config)
        }
        func hook(_ name: String, _ events: String) -> String {
            "  - {name: \(name), command: [sh, -c, 'cat >> \(out)/\(name)'], events: [\(events)]}\n"
        }
        try writeConfig(hook("early", "quota_forecast"))
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(config)])
        try tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/a")

        try writeConfig(hook("early", "quota_forecast, quota_breach") + hook("late", "quota_breach"))
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_reloaded")
        let late = try waitForText(#""path":"Caches/a""#, in: "\(out)/late")
        #expect(late.contains(#""event":"quota_breach""#), "\(late)")
        _ = try waitForText(#""path":"Caches/a""#, in: "\(out)/early")

        // The same hooks again: nothing new to tell. A later breach shows what the hooks got
        // before it (each runs its events in order).
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_reloaded", count: 2)
        try tree.writeFile(caches / "b" / "big", byteCount: 150_000)
        for name in ["late", "early"] {
            let text = try waitForText(#""path":"Caches/b""#, in: "\(out)/\(name)")
            let heardOfA = text.components(separatedBy: #""path":"Caches/a""#).count - 1
            #expect(heardOfA == 1, "\(name) heard of Caches/a \(heardOfA) times: \(text)")
        }
        #expect(daemon.events("quota_breach", where: { $0.path == "Caches/a" }).count == 1, "the stream had it once")
        try fixture.stopCleanly()
    }
}
