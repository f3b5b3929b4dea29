import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// The daemon's human outputs with hostile names in the tree: the `status` and `status
/// --quotas` tables, its log (the trace of every event and the debug event lines) and
/// `history`. No raw control reaches any of them; each name shows escaped
/// the one documented way.
@Suite("hostile names in the live daemon's human output")
struct HostileNameLiveTests {
    private let caches = LiveFixture.root / "Caches"

    private func expectClean(_ bytes: [UInt8], _ what: String) {
        let found = HostileNames.rawControls(in: bytes)
        #expect(found.isEmpty, "\(what): raw \(found) in \(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("status, status --quotas, the log and history escape every hostile name")
    func everyOutput() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let state = try TempTree(prefix: "qw-hostile-state")
        try tree.makeDirectories(caches)
        let daemon = try fixture.start(
            options: ["--quota", "Caches/*=10kB", "--trace", "--log-level", "debug", "--history"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        for name in HostileNames.corpus {
            let directory = caches.appending(name.bytes)
            try tree.makeDirectory(directory)
            try tree.writeFile(directory.appending(name.bytes), byteCount: 20_000)
        }
        for name in HostileNames.corpus {
            try daemon.waitForEvent("quota_breach", path: "Caches/" + ReportPathEscaping.escape(name.bytes))
        }

        let table = try daemon.statusCommand([
            "status", daemon.root, "--socket", daemon.socketPath, "--sync", "--depth", "2",
        ])
        #expect(table.exitStatus == 0, "\(table)")
        expectClean(table.standardOutput, "status")
        let quotas = try daemon.statusCommand(["status", daemon.root, "--socket", daemon.socketPath, "--quotas"])
        #expect(quotas.exitStatus == 0, "\(quotas)")
        expectClean(quotas.standardOutput, "status --quotas")
        for name in HostileNames.corpus {
            #expect(table.outputText.contains("  Caches/\(name.shown)\n"), "status row for \(name.shown): \(table)")
            #expect(quotas.outputText.contains("  Caches/\(name.shown)\n"), "quota row for \(name.shown): \(quotas)")
        }

        // The database says nothing when a batch lands, so this polls, with a deadline, until
        // every breach is recorded.
        let deadline = ContinuousClock.now + .seconds(30)
        var history = try fixture.cli.run(["history", fixture.rootPath, "--state-dir", state.rootPath])
        while history.outputText.components(separatedBy: " quota_breach ").count <= HostileNames.corpus.count,
            ContinuousClock.now < deadline
        {
            usleep(50_000)
            history = try fixture.cli.run(["history", fixture.rootPath, "--state-dir", state.rootPath])
        }
        #expect(history.exitStatus == 0, "\(history)")
        expectClean(history.standardOutput + history.standardError, "history")
        for name in HostileNames.corpus {
            #expect(history.outputText.contains(" Caches/\(name.shown)"), "history shows \(name.shown): \(history)")
        }

        // (Not stopCleanly: debug lines may hold the word "error" in an event's fields.)
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
        // The trace names every event's file, the debug level prints every event line.
        expectClean(Array(daemon.errorText.utf8), "the daemon's log")
        for name in HostileNames.corpus {
            #expect(daemon.errorText.contains(name.shown), "the log shows \(name.shown)")
        }
    }

    @Test("watch's event lines (no terminal) show each hostile name escaped, one line per event")
    func watchLines() throws {
        let tree = try TempTree(prefix: "qw-watch-hostile")
        for directory in ["root", "root/Caches"] { try tree.makeDirectory(TreePath(directory)) }
        let cli = try CLIRunner.locate()
        let watch = try PipedWatch(
            cli,
            [
                "watch", tree.absolutePath("root"), "--socket", tree.absolutePath("run/watch.sock"),
                "--quota", "Caches/*=10kB",
            ])
        defer { watch.cancelGuard() }
        let lines = watch.lines
        _ = try #require(lines.next { $0.contains(" ready ") }, "no ready line; got \(lines.seen)")
        for name in HostileNames.corpus {
            let directory = TreePath("root/Caches").appending(name.bytes)
            try tree.makeDirectory(directory)
            try tree.writeFile(directory.appending(name.bytes), byteCount: 20_000)
            let breach = try #require(
                lines.next { $0.contains(" quota_breach ") }, "no breach line for \(name.shown); got \(lines.seen)")
            expectClean(Array(breach.utf8), "watch line")
            #expect(breach.contains("quota_breach Caches/\(name.shown) "), "\(breach)")
        }
        #expect(watch.terminate().terminationStatus == 0)
    }
}
