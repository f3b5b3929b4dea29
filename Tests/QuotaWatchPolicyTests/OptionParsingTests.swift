import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("durations, shares and the command-line options")
struct OptionParsingTests {
    @Test(
        "durations",
        arguments: [
            ("500ms", 500), ("90s", 90_000), ("15m", 900_000), ("2h", 7_200_000), ("7d", 604_800_000),
            ("1.5h", 5_400_000), ("0s", 0),
        ])
    func durations(text: String, milliseconds: Int64) throws {
        #expect(try TimeSpan(parsing: text).duration == .milliseconds(milliseconds))
    }

    @Test("duration errors name the value and what is allowed", arguments: ["", "90", "-5s", "5 parsecs", "h", "1.s"])
    func badDurations(text: String) {
        #expect {
            try TimeSpan(parsing: text)
        } throws: { error in
            let message = "\(error)"
            return message.contains("'\(text)'") && message.contains("500ms, 90s, 15m, 2h or 7d")
        }
    }

    @Test("durations print in the largest exact unit")
    func formatting() {
        #expect(TimeSpan.format(.seconds(3600)) == "1h")
        #expect(TimeSpan.format(.seconds(90)) == "90s")
        #expect(TimeSpan.format(.milliseconds(1500)) == "1500ms")
        #expect(ShareText.format(0.1) == "10%" && ShareText.format(0.025) == "2.5%")
        #expect(SizeText.exact(200_000_000) == "200MB" && SizeText.exact(1_610_612_736) == "1536MiB")
    }

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
