import Foundation
import QuotaWatchTestSupport
import Testing

/// A sample of the bad-value corpus through the real binary: `check-config` with bad
/// values exits 65 naming key and value; options of `run`, `watch`, `clean`, `history`,
/// `status` and `scan` exit 64 naming option and value. Each runs under `timeout`, so a
/// value wrongly accepted (a daemon that starts) fails the test instead of hanging it; an
/// exit by a signal (a Swift trap is SIGILL) is reported as such.
@Suite("the bad-value corpus through the binary")
struct BadValueCLITests {
    private static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        let cli = try CLIRunner.locate()
        return try ProcessRunner.run(
            "timeout", (["-s", "KILL", "30", cli.executablePath] + arguments).map { Array($0.utf8) },
            environment: environment)
    }

    private static func expectRefused(
        _ result: ProcessResult, status: CInt, naming words: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // timeout passes a signal that ended the command on to itself, and exits 137 after its KILL.
        if case .signaled(let signal) = result.termination {
            Issue.record("ended by signal \(signal): \(result)", sourceLocation: sourceLocation)
            return
        }
        if let code = result.exitStatus, code >= 124 {
            Issue.record("timed out or ended by a signal (status \(code)): \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(result.exitStatus == status, "\(result)", sourceLocation: sourceLocation)
        for word in words {
            #expect(result.errorText.contains(word), "'\(word)' not named: \(result)", sourceLocation: sourceLocation)
        }
    }

    /// One refused value per config key, picked round the key's list so every kind of
    /// mistake is sampled; a duration key gets one of the overflows the campaign found.
    static let configCases: [BadValueCase] = BadValueCorpus.configKeys.enumerated().map { index, key in
        let refused = BadValueCorpus.refused(key.kind)
        var value = refused[(index * 7) % refused.count]
        if key.kind == .duration { value = index % 2 == 0 ? "999999999999d" : "106751991168d" }
        return BadValueCase(key: key.key, yaml: key.yaml(value), value: value, allowed: key.kind.allowedPhrase)
    }

    @Test("check-config refuses a bad value of every key with 65, naming key and value", arguments: configCases)
    func checkConfig(item: BadValueCase) throws {
        let tree = try TempTree()
        try tree.writeFile("bad.yaml", contents: Array(item.yaml.utf8))
        let result = try Self.run(["check-config", tree.absolutePath("bad.yaml")])
        Self.expectRefused(
            result, status: 65, naming: ["bad.yaml:", "\(item.key): ", "'\(item.value)'"] + item.allowed)
    }

    @Test("check-config takes the largest and the smallest value of every key")
    func checkConfigExtremes() throws {
        let tree = try TempTree()
        for (name, yaml) in [
            ("largest.yaml", BadValueCorpus.largestConfig), ("smallest.yaml", BadValueCorpus.smallestConfig),
        ] {
            try tree.writeFile(TreePath(name), contents: Array(yaml.utf8))
            for extra in [[], ["--json"]] {
                let result = try Self.run(["check-config", tree.absolutePath(TreePath(name))] + extra)
                #expect(result.exitStatus == 0, "\(result)")
            }
        }
    }

    @Test(
        "options with bad values exit 64, naming the option and the value",
        arguments: [
            ["run", "--leftover-after", "999999999999d"], ["run", "--leftover-after", "106751991168d"],
            ["run", "--leftover-after", "0s"], ["run", "--leftover-after", "0.0001ms"],
            ["run", "--leftover-after", "0x10s"], ["run", "--history-keep", "106751991168d"],
            ["run", "--history-keep", "0s"], ["run", "--history-max-size", "1B"],
            ["run", "--history-max-size", "18446744073709551616"], ["run", "--history-sample", "0x1p-1s"],
            ["run", "--history-sample", "0s"], ["run", "--workers", "+3"], ["run", "--workers", "0x10"],
            ["run", "--settle", "1e3"], ["run", "--poll-interval", "1.5"], ["run", "--metrics-interval", "inf"],
            ["run", "--quota", "a/*=0x10"], ["run", "--quota", "a/*=18446744073709551616"],
            ["run", "--level-free", "0x1p-1%,5%"], ["run", "--level-free", "10%,1e400"],
            ["run", "--metrics-listen", "127.0.0.1:+80"], ["watch", "--leftover-after", "999999999999d"],
            ["watch", "--history-keep", "0s"], ["clean", "--older-than", "999999999999d"],
            ["clean", "--older-than", "nan"], ["clean", "--larger-than", "1e3"], ["clean", "--top", "+1"],
            ["history", "--since", "999999999999d"], ["history", "--until", "106751991168d"],
            ["history", "--since", "0.0001ms"], ["status", "--depth", "+1"], ["status", "--top", "0x10"],
            ["status", "--timeout", "1e3"], ["scan", "--depth", "0x10"], ["scan", "--workers", "٣"],
        ])
    func options(arguments: [String]) throws {
        let tree = try TempTree()
        try tree.makeDirectory("root")
        try tree.makeDirectory("state")
        let command = arguments[0]
        var words = [command, tree.absolutePath("root")] + arguments.dropFirst()
        if ["run", "watch", "status", "clean"].contains(command) {
            words += ["--socket", tree.absolutePath("control.sock")]
        }
        let result = try Self.run(words, environment: ["STATE_DIRECTORY": tree.absolutePath("state")])
        Self.expectRefused(result, status: 64, naming: [arguments[1], "'\(arguments[2])'"])
        #expect(try !tree.exists("control.sock"), "a daemon started: \(result)")
    }
}

struct BadValueCase: Sendable, CustomStringConvertible {
    var key: String
    var yaml: String
    var value: String
    var allowed: [String]
    var description: String { "\(key) = '\(value)'" }
}
