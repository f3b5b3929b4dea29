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

    @Test("options become a PolicyConfig, merged over a loaded one")
    func options() throws {
        var base = PolicyConfig()
        base.quotas = [QuotaRule(glob: try PathGlob("tmp"), limit: 1)]
        let options = CommandLinePolicy.Options(
            quotas: [Array("Library/Caches/*=200MB".utf8), Array("a=b=1GiB".utf8)], leftoverAfter: "15m",
            levelFree: "10%,5GB",
            hooks: [Array("quota_breach,level=notify-send QuotaWatch  now".utf8), Array("all=/bin/true".utf8)])
        let config = try CommandLinePolicy.apply(options, over: base)
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
            (CommandLinePolicy.Options(quotas: [Array("Library/Caches/*".utf8)]), "--quota", "GLOB=SIZE"),
            (CommandLinePolicy.Options(quotas: [Array("x=12 parsecs".utf8)]), "--quota", "unknown unit"),
            (CommandLinePolicy.Options(quotas: [Array("/abs=1MB".utf8)]), "--quota", "relative to ROOT"),
            (CommandLinePolicy.Options(leftoverAfter: "soon"), "--leftover-after", "such as 500ms"),
            (CommandLinePolicy.Options(levelFree: "10%"), "--level-free", "WARNING,CRITICAL"),
            (CommandLinePolicy.Options(levelFree: "10%,150%"), "--level-free", "more than 100%"),
            (CommandLinePolicy.Options(hooks: [Array("quota_brech=x".utf8)]), "--hook", "unknown event 'quota_brech'"),
            (CommandLinePolicy.Options(hooks: [Array("all=".utf8)]), "--hook", "command is empty"),
        ])
    func badOptions(options: CommandLinePolicy.Options, option: String, reason: String) {
        #expect {
            try CommandLinePolicy.apply(options)
        } throws: { error in
            let message = "\(error)"
            return message.contains("'\(option)'") && message.contains(reason)
        }
    }
}
