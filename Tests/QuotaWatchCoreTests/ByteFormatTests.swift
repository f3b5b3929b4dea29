import QuotaWatchCore
import Testing

@Suite("Byte sizes")
struct ByteFormatTests {
    @Test(
        arguments: [
            (0, "0 B"), (999, "999 B"), (1000, "1.0 KB"), (1049, "1.0 KB"), (1050, "1.1 KB"),
            (1_250_000, "1.3 MB"), (1_249_999, "1.2 MB"), (1_350_000, "1.4 MB"),
            (999_949, "999.9 KB"), (999_950, "1.0 MB"), (4096, "4.1 KB"),
            (1_000_000_000_000, "1.0 TB"), (UInt64.max, "18.4 EB"),
        ] as [(UInt64, String)])
    func decimalRoundsTiesHalfUp(bytes: UInt64, expected: String) {
        #expect(ByteFormat.decimal.string(bytes) == expected)
    }

    @Test(
        arguments: [
            (1023, "1023 B"), (1024, "1.0 KiB"), (1075, "1.0 KiB"), (1076, "1.1 KiB"), (1_572_864, "1.5 MiB"),
            (1_048_524, "1023.9 KiB"), (1_048_525, "1.0 MiB"),
        ] as [(UInt64, String)])
    func binaryUsesPowersOf1024(bytes: UInt64, expected: String) {
        #expect(ByteFormat.binary.string(bytes) == expected)
    }

    @Test func bytesAreExact() {
        #expect(ByteFormat.bytes.string(1_250_000) == "1250000 B")
    }

    @Test(
        arguments: [
            ("200MB", 200_000_000), ("1.5GiB", 1_610_612_736), ("0", 0), ("4096", 4096), ("1.5 kb", 1500),
            ("2K", 2000), ("3MiB", 3 << 20), ("0.5B", 1), ("1.25KB", 1250), ("7 GB", 7_000_000_000),
        ] as [(String, UInt64)])
    func parsesSizes(text: String, bytes: UInt64) throws {
        #expect(try ByteCount(parsing: text).bytes == bytes)
    }

    @Test(arguments: ["12XB", "-1", "", "MB", "1.", "1.2.3", "99999999999999999999", "20000000PB", " 7 GB "])
    func rejectsBadSizesNamingTheValue(text: String) {
        do {
            let parsed = try ByteCount(parsing: text)
            Issue.record("'\(text)' parsed as \(parsed.bytes)")
        } catch {
            #expect(error.description.contains("'\(text)'"))
            #expect(error.description.contains("such as 500MB"))
        }
    }
}

@Suite("Escaped names")
struct EscapedNameTests {
    @Test func validUTF8PassesThrough() {
        #expect(EscapedName.string(Array("Caches/é 漢".utf8)) == "Caches/é 漢")
    }

    @Test func invalidBytesAndBackslashesAreEscaped() {
        #expect(EscapedName.string([0x61, 0xff, 0x5c, 0x62]) == "a\\xff\\\\b")
        // A truncated multi-byte sequence and an overlong encoding are invalid too.
        #expect(EscapedName.string([0xe6, 0xbc]) == "\\xe6\\xbc")
        #expect(EscapedName.string([0xc0, 0xaf]) == "\\xc0\\xaf")
        #expect(EscapedName.string([0xed, 0xa0, 0x80]) == "\\xed\\xa0\\x80")
    }

    @Test(arguments: [[0x61, 0xff, 0x5c], [0x5c, 0x78, 0x34, 0x31], [0x0a, 0xc3, 0xa9], []] as [[UInt8]])
    func roundTrips(bytes: [UInt8]) {
        #expect(EscapedName.bytes(EscapedName.string(bytes)) == bytes)
    }

    @Test func tableKeepsControlCharactersOnOneLine() {
        #expect(TableRenderer.printable("a\nb") == "a\\x0ab")
    }
}
