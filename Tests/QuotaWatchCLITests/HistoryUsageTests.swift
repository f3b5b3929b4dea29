import QuotaWatchTestSupport
import Testing

@Suite("history usage errors")
struct HistoryUsageTests {
    @Test(
        "bad history and run --history options exit 64, naming the value and the way out",
        arguments: [
            (["history", "ROOT", "--since", "2x"], "invalid time '2x'"),
            (["history", "ROOT", "--until", "2026-02-30"], "is not a day of the calendar"),
            (["history", "ROOT", "--since", "1h", "--until", "2h"], "swap them"),
            (["history", "ROOT", "--event", "breach"], "Did you mean 'quota_breach'?"),
            (["history", "ROOT", "--event", "quota_ok,nonsense"], "Unknown event kind 'nonsense'"),
            (["history", "ROOT", "--growth", "Caches/a", "--event", "quota_ok"], "--growth shows samples only"),
            (["history", "ROOT", "--path", "a/[b"], "--path"),
            (["history"], "Missing expected argument '<root>'"),
            (["run", "ROOT", "--history-sample", "10ms"], "shorter than 100ms; write"),
            (["run", "ROOT", "--history-keep", "forever"], "invalid duration 'forever'"),
            (["run", "ROOT", "--history-max-size", "lots"], "--history-max-size"),
        ])
    func badOptions(arguments: [String], message: String) throws {
        // run checks its ROOT before the history options: give it a real one.
        let root = try TempTree(prefix: "qw-history-usage")
        let result = try CLIRunner.locate().run(arguments.map { $0 == "ROOT" ? root.rootPath : $0 })
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains(message), "\(result)")
        #expect(result.errorText.contains("Usage: quotawatch \(arguments[0])"), "\(result)")
    }

    @Test("no database: exit 1, naming the file and how to record one")
    func noDatabase() throws {
        let state = try TempTree(prefix: "qw-history-none")
        let result = try CLIRunner.locate().run(["history", "/srv/app", "--state-dir", state.rootPath])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains(state.rootPath) && result.errorText.contains("history.sqlite"), "\(result)")
        #expect(result.errorText.contains("quotawatch run ROOT --history"), "\(result)")
    }
}
