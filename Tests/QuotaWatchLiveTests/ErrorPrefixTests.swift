import Foundation
import QuotaWatchTestSupport
import Testing

/// Every error starts the same way, `quotawatch: error: `, whether a command reports it, the
/// daemon refuses its arguments or fails at start-up, or a command shows what the daemon
/// answered on its socket.
@Suite("one error prefix in the commands and the daemon")
struct ErrorPrefixTests {
    static let prefix = "quotawatch: error: "

    private func expectPrefixed(_ result: ProcessResult, _ what: String, status: Int32? = nil) {
        let first = result.errorText.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
        #expect(
            first?.hasPrefix(Self.prefix) == true,
            "\(what): the first line of stderr is \(first ?? "nothing"): \(result)")
        #expect((first?.count ?? 0) > Self.prefix.count + 10, "\(what): an error with no message: \(result)")
        #expect(result.exitStatus != 0, "\(what) succeeded: \(result)")
        if let status { #expect(result.exitStatus == status, "\(what): \(result)") }
    }

    @Test("failing commands: usage mistakes, a missing root, no daemon, a bad or missing config, no history")
    func commands() throws {
        let tree = try TempTree(prefix: "qw-error-prefix")
        try tree.makeDirectories("root/Library")
        try tree.makeDirectory("state")
        try tree.writeFile("bad.yaml", contents: Array("quotas:\n  - {path: x, limit: 20XB}\n".utf8))
        let cli = try CLIRunner.locate()
        let root = tree.absolutePath("root")
        let nowhere = tree.absolutePath("nobody.sock")
        let cases: [(String, [String], Int32?)] = [
            ("a misspelt subcommand", ["stauts"], 64),
            ("a misspelt option", ["scan", root, "--dept", "1"], 64),
            ("a bad value", ["scan", root, "--depth", "-3"], 64),
            ("a missing root", ["scan", tree.absolutePath("missing")], 64),
            ("--yes with --dry-run", ["clean", root, "--yes", "--dry-run"], 64),
            ("status with no daemon", ["status", root, "--socket", nowhere], 1),
            ("status --quotas with no daemon", ["status", root, "--quotas", "--socket", nowhere], 1),
            ("clean-now with no daemon", ["clean-now", "--socket", nowhere], 1),
            ("watch with no daemon", ["watch", "--socket", nowhere], 1),
            ("a missing config", ["check-config", tree.absolutePath("missing.yaml")], 66),
            ("a bad config", ["check-config", tree.absolutePath("bad.yaml")], 65),
            ("no history", ["history", root, "--state-dir", tree.absolutePath("state")], 1),
        ]
        for (what, arguments, status) in cases {
            expectPrefixed(try cli.run(arguments), what, status: status)
        }
    }

    @Test("the daemon: a bad argument, a missing root, a bad config, a socket in use, a metrics file it cannot write")
    func daemon() throws {
        let tree = try TempTree(prefix: "qw-error-prefix-daemon")
        try tree.makeDirectories("root/Library")
        try tree.writeFile("bad.yaml", contents: Array("qouta: []\n".utf8))
        let cli = try CLIRunner.locate()
        let root = tree.absolutePath("root")
        let socket = tree.absolutePath("run/daemon.sock")
        let alone = ["--socket", tree.absolutePath("run/other.sock"), "--no-history"]
        expectPrefixed(try cli.run(["run", root, "--quota", "bad"] + alone), "run --quota bad", status: 64)
        expectPrefixed(try cli.run(["run", root, "--log-level", "loud"] + alone), "run --log-level loud", status: 64)
        expectPrefixed(try cli.run(["run", tree.absolutePath("missing")] + alone), "run on a missing root", status: 64)
        expectPrefixed(
            try cli.run(["run", root, "--config", tree.absolutePath("bad.yaml")] + alone), "run --config bad")
        expectPrefixed(
            try cli.run(["run", root, "--metrics-textfile", tree.absolutePath("no/such/dir/q.prom")] + alone),
            "run --metrics-textfile in a missing directory")

        let daemon = try Daemon.start(cli, root: root, socket: socket)
        defer { _ = try? daemon.stop() }
        // The engine's own start-up failure, from its log.
        expectPrefixed(try cli.run(["run", root, "--socket", socket, "--no-history"]), "a second daemon on the socket")
        // What the daemon answers with {"error":…}, as the command shows it.
        let refused = try cli.run(["status", root, "--socket", socket, "--path", "nope"])
        expectPrefixed(refused, "status --path of a missing directory", status: 1)
        #expect(refused.errorText.contains("answered: "), "\(refused)")
    }
}
