import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("durations and shares in their grammars")
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
}
