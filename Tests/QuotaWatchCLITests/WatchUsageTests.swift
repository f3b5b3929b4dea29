import QuotaWatchTestSupport
import Testing

@Suite("watch usage")
struct WatchUsageTests {
    @Test(
        "bad watch options exit 64 with watch's usage, run's options checked as run checks them",
        arguments: [
            ["watch"],
            ["watch", "a", "b"],
            ["watch", "ROOT", "--iec", "--bytes"],
            ["watch", "ROOT", "--quota", "Caches/*=20XB"],
            ["watch", "ROOT", "--settle", "0"],
            ["watch", "ROOT", "--frobnicate"],
            ["watch", "ROOT", "--history-sample", "1ms"],
            ["watch", "ROOT", "--history-keep", "zz"],
            ["watch", "ROOT", "--history-max-size", "1XB"],
            ["watch", "ROOT", "--metrics-listen", "foo"],
            ["watch", "ROOT", "--metrics-textfile", "metrics.txt"],
            ["watch", "ROOT", "--metrics-interval", "0"],
        ])
    func badOptions(arguments: [String]) throws {
        let tree = try TempTree()
        try tree.makeDirectory("root")
        let resolved = arguments.map { $0 == "ROOT" ? tree.absolutePath("root") : $0 }
        // With ROOT, the socket is where an in-process engine would listen (never created);
        // without, --socket would name a daemon to attach to, so none is given.
        let socket = arguments.contains("ROOT") ? ["--socket", tree.absolutePath("never.sock")] : []
        let result = try CLIRunner.locate().run(resolved + socket)
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Usage: quotawatch watch"), "\(result)")
        #expect(try !tree.exists("never.sock"), "nothing was started")
    }

    @Test("--socket with no daemon behind it says so and exits 1")
    func noDaemon() throws {
        let tree = try TempTree()
        let socket = tree.absolutePath("nobody.sock")
        let result = try CLIRunner.locate().run(["watch", "--socket", socket])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("no quotawatch daemon is listening on \(socket)"), "\(result)")
    }

    @Test("watch's help lists run's options and its keys")
    func help() throws {
        let result = try CLIRunner.locate().run(["watch", "--help"])
        #expect(result.exitStatus == 0)
        for option in ["--quota", "--config", "--clean", "--workers", "--iec"] {
            #expect(result.outputText.contains(option), "\(option) missing from\n\(result.outputText)")
        }
        #expect(result.outputText.contains("80x24"))
    }
}
