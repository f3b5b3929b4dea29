import QuotaWatchTestSupport
import Testing

/// A bad command line is refused before the command does anything: every value is parsed and
/// every rule between options checked before a file is read or a daemon asked.
@Suite("usage errors before running")
struct UsageBeforeRunningTests {
    @Test("clean-now --top -1 is a usage error, not a question to the daemon that then fails")
    func cleanNowTopBeforeAsking() throws {
        let tree = try TempTree()
        let result = try CLIRunner.locate().run([
            "clean-now", "--socket", tree.absolutePath("nobody.sock"), "--top", "-1",
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Invalid value '-1' for '--top'"), "\(result)")
        #expect(!result.errorText.contains("no quotawatch daemon"), "\(result)")
    }

    @Test("clean-now --iec --bytes is refused before the daemon is asked")
    func cleanNowFormatBeforeAsking() throws {
        let tree = try TempTree()
        let result = try CLIRunner.locate().run([
            "clean-now", "--socket", tree.absolutePath("nobody.sock"), "--iec", "--bytes",
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Choose one of '--iec' and '--bytes'"), "\(result)")
    }

    @Test("run: a bad --quota is a usage error (64) even when the --config cannot be read (66)")
    func runOptionBeforeConfig() throws {
        let tree = try TempTree()
        try tree.makeDirectory("root")
        let result = try CLIRunner.locate().run([
            "run", tree.absolutePath("root"), "--config", tree.absolutePath("missing.yaml"), "--quota", "x",
            "--socket", tree.absolutePath("never.sock"),
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("invalid value 'x' for '--quota'"), "\(result)")
        #expect(try !tree.exists("never.sock"))
    }

    @Test("watch --socket PATH reads run's options too: a bad one is refused before attaching")
    func watchAttachChecksEngineOptions() throws {
        let tree = try TempTree()
        let result = try CLIRunner.locate().run([
            "watch", "--socket", tree.absolutePath("nobody.sock"), "--workers", "0",
        ])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Invalid value '0' for '--workers'"), "\(result)")
    }
}
