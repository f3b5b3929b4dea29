import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Every event says whose it is: the `root` field of each line, `QUOTAWATCH_ROOT` in each
/// hook, so the events of two daemons, or of two rules, are never confused downstream.
@Suite("the root of every event")
struct EventRootLiveTests {
    private let root = LiveFixture.root

    /// Polls for a file a hook writes (nothing the daemon sends says when a hook is done).
    private func waitForLines(_ path: String, count: Int, timeout: TimeInterval = 60) throws -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var lines: [String] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count && text.hasSuffix("\n") { return lines }
            usleep(20_000)
        }
        throw DaemonError("\(path) has \(lines.count) of \(count) lines: \(lines)")
    }

    private func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    }

    @Test(
        "a ROOT given relative, through a symlink and with '..': every line on --events and on the socket's stream, and every hook, has its realpath"
    )
    func everyKindCarriesTheRealRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for name in ["Documents", "Library", "tmp"] { try tree.makeDirectory(root / name) }
        try tree.makeDirectories(root / "Caches" / "a")
        try tree.writeFile(root / "tmp" / "CFNetworkDownload_old.tmp", byteCount: 20_000)
        try tree.setTimes(root / "tmp" / "CFNetworkDownload_old.tmp", seconds: Int(Date().timeIntervalSince1970) - 7200)
        try tree.makeSymlink(LiveFixture.outside / "link", target: "../root")
        let out = tree.absolutePath(LiveFixture.outside)
        let hook: TreePath = LiveFixture.outside / "hook.sh"
        try tree.writeFile(
            hook,
            contents: Array(
                """
                #!/bin/sh
                { printf '%s\\n' "$QUOTAWATCH_ROOT"; cat; } >> \(out)/hooked

                """.utf8), mode: 0o755)
        // From outside/: ../outside/link is ROOT through the symlink, tmp/.. comes back to it.
        let given = "../outside/link/tmp/.."
        let daemon = try Daemon.start(
            fixture.cli, root: given, socket: fixture.socketPath,
            options: [
                "--quota", "Caches/*=40kB", "--leftover-after", "1s", "--clean",
                "--hook", "quota_breach,leftover,leftover_gone=\(tree.absolutePath(hook))", "--hook",
                "quota_ok=/bin/false",
            ],
            wrapper: ["/bin/sh", "-c", "cd '\(out)' && exec \"$0\" \"$@\""])
        let expected = fixture.rootPath
        #expect(!expected.contains("..") && !expected.contains("link"))

        let stream = try RawSocket.unix(fixture.socketPath)
        try stream.send(Array(#"{"command":"events"}"#.utf8) + [0x0A])
        let subscribed = try stream.receiveLine()
        #expect(object(String(decoding: subscribed.line, as: UTF8.self))["root"] as? String == expected)

        // The leftover there at start is reported, cleaned by the first run, and gone.
        try daemon.waitForEvent("leftover_gone")
        try tree.writeFile(root / "Caches" / "a" / "big", byteCount: 60_000)
        try daemon.waitForEvent("quota_breach")
        // Back under the quota: --clean's eviction may have removed the file already.
        try? tree.truncateFile(root / "Caches" / "a" / "big", to: 0)
        try daemon.waitForEvent("hook_failed")

        let kinds = ["ready", "leftover", "cleanup", "leftover_gone", "quota_breach", "quota_ok", "hook_failed"]
        for kind in kinds {
            #expect(daemon.events.contains { $0.event == kind }, "no \(kind) event\n\(daemon.transcript)")
        }
        for line in daemon.events {
            #expect(line.root == expected, "--events: \(line.text)")
        }
        // The stream has every line since it subscribed, up to hook_failed, each with the root.
        var streamed: [String] = []
        while !streamed.contains(where: { $0.contains(#""event":"hook_failed""#) }) {
            let received = try stream.receiveLine()
            if received.ended { break }
            streamed.append(String(decoding: received.line, as: UTF8.self))
        }
        #expect(streamed.contains { $0.contains(#""event":"quota_breach""#) }, "\(streamed)")
        for line in streamed {
            #expect(object(line)["root"] as? String == expected, "events stream: \(line)")
        }
        // Each hook run: QUOTAWATCH_ROOT, then the event's line, whose root is the same.
        let hooked = try waitForLines("\(out)/hooked", count: 6)
        for pair in stride(from: 0, to: hooked.count - 1, by: 2) {
            #expect(hooked[pair] == expected, "QUOTAWATCH_ROOT: \(hooked)")
            #expect(object(hooked[pair + 1])["root"] as? String == expected, "hook stdin: \(hooked[pair + 1])")
        }
        stream.close()
        _ = try daemon.stop()
    }

    @Test("two daemons on two roots, one hook log: the same path and rule, told apart by root")
    func twoDaemonsAreToldApart() throws {
        let shared = try TempTree(prefix: "qw-two-roots")
        let log = shared.absolutePath("alerts")
        try shared.writeFile("hook.sh", contents: Array("#!/bin/sh\ncat >> \(log)\n".utf8), mode: 0o755)
        let hook = shared.absolutePath("hook.sh")
        let first = try LiveFixture()
        let second = try LiveFixture()
        var daemons: [Daemon] = []
        for fixture in [first, second] {
            try fixture.tree.makeDirectories(root / "Caches" / "a")
            daemons.append(try fixture.start(options: ["--quota", "Caches/*=40kB", "--hook", "quota_breach=\(hook)"]))
        }
        for (fixture, daemon) in zip([first, second], daemons) {
            try fixture.tree.writeFile(root / "Caches" / "a" / "big", byteCount: 60_000)
            let breach = try daemon.waitForEvent("quota_breach")
            #expect(breach.root == fixture.rootPath, "\(breach)")
        }
        let alerts = try waitForLines(log, count: 2).map(object)
        #expect(alerts.count == 2, "\(alerts)")
        #expect(alerts.allSatisfy { $0["path"] as? String == "Caches/a" && $0["rule"] as? String == "Caches/*" })
        #expect(Set(alerts.compactMap { $0["root"] as? String }) == [first.rootPath, second.rootPath], "\(alerts)")
        for daemon in daemons { _ = try daemon.stop() }
    }
}
