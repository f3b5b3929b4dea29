import QuotaWatchCore
import Testing

/// Both sides of the value grammar docs/configuration.md documents ("Values"): what each kind
/// accepts, exactly, and that every refusal names the value and what is allowed.
@Suite("the value grammar: sizes, durations, ratios, shares, numbers")
struct ValueGrammarTests {
    @Test(
        "sizes docs/configuration.md documents are read exactly",
        arguments: [
            ("0", 0), ("4096", 4096), ("4096B", 4096), ("200MB", 200_000_000), ("750kB", 750_000), ("750KB", 750_000),
            ("10mb", 10_000_000), ("10 MB", 10_000_000), ("1.5GiB", 1_610_612_736), ("1.5GB", 1_500_000_000),
            ("2K", 2000), ("1KiB", 1024), ("1kib", 1024), ("1Ki", 1024), ("1PiB", 1 << 50),
            ("1PB", 1_000_000_000_000_000),
            ("0.5B", 1), ("1.0005kB", 1001), ("007MB", 7_000_000), ("18446744073709551615", UInt64.max),
            ("16383PiB", 16383 << 50),
            ("1." + String(repeating: "0", count: 5000) + "MB", 1_000_000),
        ] as [(String, UInt64)])
    func sizes(text: String, bytes: UInt64) throws {
        #expect(try ByteCount(parsing: text).bytes == bytes)
    }

    @Test(
        "sizes outside the grammar are refused, naming the value and what is allowed",
        arguments: [
            ("", "empty"), ("-1MB", "negative"), ("+1MB", "'+'"), ("0x10", "hexadecimal"), ("0X10MB", "hexadecimal"),
            (".5GB", "digit before the decimal point"), ("1.GB", "no digits after"), ("1e3", "exponents"),
            ("1E3MB", "exponents"), ("1,5GB", "separators"), ("1_000", "separators"), ("inf", "does not start"),
            ("nan", "does not start"), (" 10MB", "spaces around"), ("10MB ", "spaces around"), ("\t1", "spaces around"),
            ("٣MB", "does not start"), ("10XB", "unknown unit 'XB'"), ("10MBs", "unknown unit"),
            ("1h30m", "unknown unit"),
            ("10 M B", "unknown unit"), ("0.4B", "less than one byte"), ("18446744073709551616", "larger than"),
            ("17EB", "unknown unit"), ("16384PiB", "larger than"), (String(repeating: "9", count: 5000), "larger than"),
            ("1MB\n", "unknown unit"), ("１MB", "does not start"),
        ])
    func badSizes(text: String, reason: String) {
        #expect {
            try ByteCount(parsing: text)
        } throws: { error in
            let message = "\(error)"
            return message.contains("invalid size '\(text)'") && message.contains(reason)
                && message.contains("such as 500MB, 1.5GiB or 4096")
                && message.contains("from 0 to 18446744073709551615B")
        }
    }

    @Test("a size outside its key's range names the range")
    func sizeRange() {
        #expect {
            try ByteCount(parsing: "1B", in: 1_000_000...UInt64.max)
        } throws: { error in
            "\(error)".contains("'1B': it is less than 1MB") && "\(error)".contains("from 1MB to 18446744073709551615B")
        }
        #expect(throws: Never.self) { try ByteCount(parsing: "1MB", in: 1_000_000...UInt64.max) }
    }

    @Test(
        "durations docs/configuration.md documents are read to the millisecond",
        arguments: [
            ("0s", 0), ("500ms", 500), ("90s", 90_000), ("15m", 900_000), ("2h", 7_200_000), ("7d", 604_800_000),
            ("1.5h", 5_400_000), ("90S", 90_000), ("2H", 7_200_000), ("1MS", 1), ("90 s", 90_000), ("0.5ms", 1),
            ("1.0004s", 1000), ("1.0005s", 1001), ("36500d", 3_153_600_000_000), ("00001s", 1000),
            ("0.001s", 1),
        ] as [(String, Int64)])
    func durations(text: String, milliseconds: Int64) throws {
        #expect(try TimeSpan(parsing: text).duration == .milliseconds(milliseconds))
    }

    @Test(
        "durations outside the grammar are refused, naming the value and what is allowed",
        arguments: [
            ("", "empty"), ("90", "no unit"), ("-5s", "negative"), ("+5s", "'+'"), ("0x10s", "hexadecimal"),
            (".5s", "digit before"), ("1.s", "no digits after"), ("1e3s", "exponents"), ("5 parsecs", "unknown unit"),
            ("1h30m", "unknown unit 'h30m'"), ("2 hours", "unknown unit 'hours'"), ("inf", "does not start"),
            ("nan", "does not start"), (" 5s", "spaces around"), ("0.0001ms", "shorter than 1ms"),
            ("0.4ms", "shorter than 1ms"), ("36500.001d", "longer than 36500d"), ("36501d", "longer than 36500d"),
            ("999999999999d", "longer than 36500d"), ("106751991168d", "longer than 36500d"),
            ("9223372036854775807ms", "longer than"), (String(repeating: "9", count: 400) + "d", "longer than"),
            ("٣s", "does not start"), ("1y", "unknown unit"),
        ])
    func badDurations(text: String, reason: String) {
        #expect {
            try TimeSpan(parsing: text)
        } throws: { error in
            let message = "\(error)"
            return message.contains("invalid duration '\(text)'") && message.contains(reason)
                && message.contains("500ms, 90s, 15m, 2h or 7d") && message.contains("from 0s to 36500d")
        }
    }

    @Test("a duration outside its option's range names the range")
    func durationRange() {
        #expect {
            try TimeSpan(parsing: "0s", in: TimeSpan.atLeast(.seconds(1)))
        } throws: { error in
            "\(error)".contains("'0s': it is shorter than 1s") && "\(error)".contains("from 1s to 36500d")
        }
    }

    @Test(
        "ratios: a number from 0 to 1 or a percentage",
        arguments: [
            ("0", 0), ("1", 1), ("0.8", 0.8), ("80%", 0.8), ("80 %", 0.8), ("2.5%", 0.025), ("100%", 1), ("0%", 0),
            ("1.0", 1), ("0.80", 0.8),
        ] as [(String, Double)])
    func ratios(text: String, value: Double) throws {
        #expect(try NumberText.ratio(text) == value)
    }

    @Test(
        "ratios outside the grammar are refused, naming the value and what is allowed",
        arguments: [
            ("0x1p-1", "hexadecimal"), ("0x10", "hexadecimal"), ("inf", "does not start"), ("nan", "does not start"),
            ("1e400", "exponents"), ("1e-1", "exponents"), ("+0.5", "'+'"), ("-0.5", "negative"), (" 0.5", "spaces"),
            ("0.5 ", "spaces"), (".8", "digit before"), ("1.5", "more than 1"), ("150%", "more than 100%"),
            ("0.8x", "unexpected 'x'"), ("80%%", "unexpected '%%'"), ("", "empty"), ("٠.٥", "does not start"),
            ("1" + String(repeating: "0", count: 400), "more than 1"),
        ])
    func badRatios(text: String, reason: String) {
        #expect {
            try NumberText.ratio(text)
        } throws: { error in
            let message = "\(error)"
            return message.contains("invalid ratio '\(text)'") && message.contains(reason)
                && message.contains("a number from 0 to 1") && message.contains("a percentage from 0% to 100%")
        }
    }

    @Test("shares must be percentages; numbers and whole numbers take digits only")
    func sharesAndNumbers() throws {
        #expect(try NumberText.share("10%") == 0.1)
        #expect(throws: NumberParseError.self) { try NumberText.share("0.1") }
        #expect(try NumberText.number("2.5", in: 0...10) == 2.5)
        #expect(try NumberText.wholeNumber("064", in: 1...100) == 64)
        for bad in ["0x10", "+3", "1e3", "3.0", " 3", "3 ", "inf", "-1", "", String(repeating: "9", count: 100)] {
            #expect {
                try NumberText.wholeNumber(bad, in: 1...100_000)
            } throws: { error in
                "\(error)".contains("'\(bad)'") && "\(error)".contains("write a whole number from 1 to 100000")
            }
        }
        for bad in ["0x10", "0x1p-1", "+3", "1e3", "inf", "nan", "-1", "11", "2x"] {
            #expect {
                try NumberText.number(bad, in: 0...10)
            } throws: { error in
                "\(error)".contains("'\(bad)'") && "\(error)".contains("a whole or decimal number from 0 to 10")
            }
        }
    }
}
