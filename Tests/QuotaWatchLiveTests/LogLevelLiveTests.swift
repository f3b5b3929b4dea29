import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `run --log-level` and the journal's priority prefixes, on the real daemon's stderr.
@Suite("log levels of the live daemon")
struct LogLevelLiveTests {
    private let configPath: TreePath = "outside/quotawatch.yaml"

    /// Starts a daemon with a good config, makes it log a notice and a warning (a SIGHUP that
    /// finds the config broken), stops it, and returns its stderr.
    private func logOfReloadFailure(options: [String], wrapper: [String] = []) throws -> String {
        try logAndRootOfReloadFailure(options: options, wrapper: wrapper).log
    }

    /// ``logOfReloadFailure(options:wrapper:)``, the root as the log names it, and what starts
    /// a line about the root that does not name it itself: `ROOT: ` in a daemon serving
    /// several roots (the fixture's siblings), nothing in one serving one.
    private func logAndRootOfReloadFailure(
        options: [String], wrapper: [String] = []
    ) throws -> (log: String, root: String, about: String) {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(configPath, contents: Array("quotas: []\n".utf8))
        let daemon = try fixture.start(
            options: ["--config", fixture.tree.absolutePath(configPath)] + options, wrapper: wrapper)
        let staged: TreePath = "outside/staged.yaml"
        try fixture.tree.writeFile(staged, contents: Array("qouta: 1\n".utf8))
        try fixture.tree.rename(staged, to: configPath)
        daemon.send(SIGHUP)
        try daemon.waitForEvent("config_error")
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
        return (exit.errorText, fixture.rootPath, daemon.siblings == nil ? "" : "\(fixture.rootPath): ")
    }

    @Test("the default level, info, logs ready, the reload and its failure, and the stop")
    func defaultLevel() throws {
        let (log, root, about) = try logAndRootOfReloadFailure(options: [])
        for line in [
            "quotawatch: ready: watching ", "quotawatch: SIGHUP: reading the config of \(root) again",
            "quotawatch: \(about)SIGHUP: the config was not reloaded", "quotawatch: stopping: \(root)\n",
            "quotawatch: stopped by SIGTERM",
        ] {
            #expect(log.contains(line), "no '\(line)' in:\n\(log)")
        }
        #expect(!log.contains("debug:"), "\(log)")
        #expect(!log.contains("<"), "priority prefixes without the journal:\n\(log)")
    }

    @Test("--log-level warning keeps the warning and drops info and notice")
    func warningLevel() throws {
        let (log, _, about) = try logAndRootOfReloadFailure(options: ["--log-level", "warning"])
        #expect(log.contains("quotawatch: \(about)SIGHUP: the config was not reloaded"), "\(log)")
        for line in ["ready: watching", "reading the config", "stopping", "stopped by"] {
            #expect(!log.contains(line), "'\(line)' logged at --log-level warning:\n\(log)")
        }
    }

    @Test("--log-level debug adds every event line")
    func debugLevel() throws {
        let log = try logOfReloadFailure(options: ["--log-level", "debug"])
        #expect(log.contains("quotawatch: debug: event: {\"allocated\":"), "\(log)")
        #expect(log.contains("\"event\":\"config_error\""), "\(log)")
    }

    @Test("when stderr is the stream JOURNAL_STREAM names, each line carries its syslog priority")
    func journalPrefixes() throws {
        // The stream's device and inode, as systemd sets them, read by the shell that execs the daemon.
        let wrapper = [
            "/bin/sh", "-c",
            "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); export JOURNAL_STREAM; exec \"$0\" \"$@\"",
        ]
        let (log, _, about) = try logAndRootOfReloadFailure(options: [], wrapper: wrapper)
        #expect(log.contains("<6>quotawatch: ready: watching "), "\(log)")
        #expect(log.contains("<5>quotawatch: SIGHUP: reading the config of "), "\(log)")
        #expect(log.contains("<4>quotawatch: \(about)SIGHUP: the config was not reloaded"), "\(log)")
        #expect(log.contains("<5>quotawatch: stopped by SIGTERM"), "\(log)")
        let unprefixed = log.split(separator: "\n").filter { !$0.hasPrefix("<") }
        #expect(unprefixed.isEmpty, "lines without a priority: \(unprefixed)")
    }

    @Test("a --log-level that is not a level is a usage error naming it and the levels")
    func badLevel() throws {
        let fixture = try LiveFixture()
        let result = try fixture.cli.run(["run", fixture.rootPath, "--log-level", "loud"])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(
            result.errorText.contains("'loud'") && result.errorText.contains("debug, info, notice, warning, error"),
            "\(result)")
    }
}
