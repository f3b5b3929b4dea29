import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

import quotawatch

/// The `run` options' grammars (``CommandLinePolicy``, the CLI's): each value read, merged
/// over a loaded config, and every bad value named with the option and the way out.
@Suite("the run command's policy options")
struct RunOptionParsingTests {
    @Test("option values read in their grammars become a PolicyConfig, merged over a loaded one")
    func options() throws {
        var base = PolicyConfig()
        base.quotas = [QuotaRule(glob: try PathGlob("tmp"), limit: 1)]
        let overrides = CommandLinePolicy.Overrides(
            quotas: try ["Library/Caches/*=200MB", "a=b=1GiB"].map { try CommandLinePolicy.quota(Array($0.utf8)) },
            leftoverAge: try CommandLinePolicy.leftoverAge("15m"),
            levelFree: try CommandLinePolicy.levelFree("10%,5GB"),
            hooks: try ["quota_breach,level=notify-send QuotaWatch  now", "all=/bin/true"].map {
                try CommandLinePolicy.hook(Array($0.utf8))
            })
        let config = CommandLinePolicy.apply(overrides, over: base)
        #expect(config.quotas.map(\.glob.text) == ["tmp", "Library/Caches/*", "a=b"])
        #expect(config.quotas.map(\.limit) == [1, 200_000_000, 1 << 30])
        #expect(config.leftovers.age == .seconds(900))
        #expect(config.levels.freeWarning == [.share(0.1)] && config.levels.freeCritical == [.bytes(5_000_000_000)])
        #expect(config.hooks[0].command == ["notify-send", "QuotaWatch", "now"].map { Array($0.utf8) })
        #expect(config.hooks[0].events == ["quota_breach", "level"])
        #expect(config.hooks[1].events.isEmpty && config.hooks[1].name == "hook-2")
    }

    @Test(
        "bad option values name the option, the value and the way out",
        arguments: [
            ("--quota", "Library/Caches/*", "GLOB=SIZE"),
            ("--quota", "x=12 parsecs", "unknown unit"),
            ("--quota", "/abs=1MB", "relative to ROOT"),
            ("--leftover-after", "soon", "such as 500ms"),
            ("--level-free", "10%", "WARNING,CRITICAL"),
            ("--level-free", "10%,150%", "more than 100%"),
            ("--hook", "quota_brech=x", "unknown event 'quota_brech'"),
            ("--hook", "all=", "command is empty"),
        ])
    func badOptions(option: String, value: String, reason: String) {
        #expect {
            try Self.read(option, value)
        } throws: { error in
            let message = "\(error)"
            return message.contains("'\(option)'") && message.contains(reason)
        }
    }

    @Test("run's policy options refuse the same values as the config, naming option and value")
    func policyOptions() {
        var options: [(String, String, String)] = []
        for value in BadValueCorpus.refused(.duration) + ["0s", "999ms"] {
            options.append(("--leftover-after", value, value))
        }
        for value in BadValueCorpus.refused(.size) {
            options.append(("--quota", "Caches/*=\(value)", value))
        }
        // The list takes spaces around its items ("10%, 5%"), so those values are not bad here.
        for value in BadValueCorpus.refused(.spaceThreshold)
        where !value.contains(",") && !value.hasPrefix(" ") && !value.hasSuffix(" ") {
            options.append(("--level-free", "\(value),5%", value))
        }
        for (option, given, value) in options {
            #expect {
                try Self.read(option, given)
            } throws: { error in
                let message = "\(error)"
                return message.contains("'\(option)'") && message.contains("'\(HumanText.escaped(value))'")
                    && message.contains("write")
            }
        }
        #expect(throws: Never.self) {
            try Self.read("--leftover-after", "36500d")
            try Self.read("--level-free", "10%, 5%")
        }
    }

    /// One value in the grammar of `option`, as the command line's parser reads it.
    static func read(_ option: String, _ value: String) throws(CommandLinePolicy.OptionError) {
        switch option {
        case "--quota": _ = try CommandLinePolicy.quota(Array(value.utf8))
        case "--leftover-after": _ = try CommandLinePolicy.leftoverAge(value)
        case "--level-free": _ = try CommandLinePolicy.levelFree(value)
        case "--hook": _ = try CommandLinePolicy.hook(Array(value.utf8))
        default: Issue.record("no grammar for \(option)")
        }
    }
}
