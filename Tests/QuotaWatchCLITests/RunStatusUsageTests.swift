import QuotaWatchTestSupport
import Testing

@Suite("run and status usage errors")
struct RunStatusUsageTests {
    @Test("run with a missing ROOT names it and exits 64 without starting")
    func runMissingRoot() throws {
        let tree = try TempTree()
        let missing = tree.absolutePath("does-not-exist")
        let socket = tree.absolutePath("never.sock")
        let result = try CLIRunner.locate().run(["run", missing, "--socket", socket])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains(missing), "\(result)")
        #expect(try !tree.exists("never.sock"), "no socket is created for a bad root")
    }

    @Test(
        "bad run and status options exit 64 with usage on stderr",
        arguments: [
            ["run", "ROOT", "--events", "xml"],
            ["run", "ROOT", "--settle", "0"],
            ["run"],
            ["status", "--depth", "many"],
            ["status", "ROOT", "--depth", "-1"],
            ["status", "ROOT", "--top", "0"],
            ["status", "ROOT", "--path", "/etc"],
            ["status", "ROOT", "--path", "a/../../b"],
            ["status", "--sync"],
            ["status", "a", "b"],
            ["status", "ROOT", "--iec", "--bytes"],
            ["run", "ROOT", "--quota", "Caches/*"],
            ["run", "ROOT", "--quota", "Caches/*=20XB"],
            ["run", "ROOT", "--level-free", "10%"],
            ["run", "ROOT", "--hook", "nothing=true"],
            ["status", "ROOT", "--quotas", "--depth", "3"],
            ["status", "ROOT", "--quotas", "--state", "full"],
            ["status", "ROOT", "--quotas", "--top", "none"],
            ["status", "ROOT", "--state", "breach"],
        ])
    func badOptions(arguments: [String]) throws {
        let result = try CLIRunner.locate().run(arguments)
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Usage: quotawatch \(arguments[0])"), "\(result)")
    }

    @Test("a bad --depth or --path says what it accepts")
    func statusSelectionMessages() throws {
        let depth = try CLIRunner.locate().run(["status", "ROOT", "--depth", "many"])
        #expect(
            depth.errorText.contains(
                "Invalid value 'many' for '--depth': it does not start with a number; expected 'all' or a whole number")
        )
        let path = try CLIRunner.locate().run(["status", "ROOT", "--path", "/etc"])
        #expect(path.errorText.contains("path '/etc' is absolute; give it relative to the root"), "\(path)")
    }

    @Test("a bad --state, or --state without --quotas, names the value and the way out")
    func quotaFilterMessages() throws {
        let state = try CLIRunner.locate().run(["status", "ROOT", "--quotas", "--state", "full"])
        #expect(
            state.errorText.contains("Unknown quota state 'full' for --state: use breach, warning or ok"), "\(state)")
        let alone = try CLIRunner.locate().run(["status", "ROOT", "--state", "breach"])
        #expect(alone.errorText.contains("'--state breach' filters quota rows: add --quotas"), "\(alone)")
    }

    @Test("status with no daemon behind the socket says how to start one, exit 1")
    func statusWithoutDaemon() throws {
        let tree = try TempTree()
        let socket = tree.absolutePath("nobody-home.sock")
        let result = try CLIRunner.locate().run(["status", "--socket", socket])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains(socket), "\(result)")
        #expect(result.errorText.contains("quotawatch run"), "\(result)")
    }

    @Test("help works both ways for every subcommand", arguments: ["scan", "run", "status"])
    func help(subcommand: String) throws {
        let viaHelp = try CLIRunner.locate().run(["help", subcommand])
        let viaFlag = try CLIRunner.locate().run([subcommand, "--help"])
        #expect(viaHelp.exitStatus == 0 && viaFlag.exitStatus == 0)
        #expect(viaHelp.outputText == viaFlag.outputText)
        for section in ["OVERVIEW:", "USAGE: quotawatch \(subcommand)", "OPTIONS:"] {
            #expect(viaHelp.outputText.contains(section), "\(section) in \(viaHelp.outputText)")
        }
    }
}
