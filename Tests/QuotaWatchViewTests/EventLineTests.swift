import QuotaWatchCore
import QuotaWatchView
import Testing

@Suite struct EventLineTests {
    @Test func aBreachReadsAsTimeKindPathSizesAndRule() throws {
        let json =
            #"{"allocated":12500000,"effective_limit":10000000,"event":"quota_breach","level":"normal","limit":10000000,"path":"Library/Caches/Feed","rule":"Library/Caches/*","time":"2026-12-01T00:04:05.123Z"}"#
        let line = try #require(EventLine.parse(json, receivedAt: 0, utcOffset: 3600, format: .decimal))
        #expect(
            line.text
                == "2026-12-01T01:04:05+01:00 quota_breach Library/Caches/Feed 12.5 MB allocated, limit 10.0 MB (rule Library/Caches/*)"
        )
        #expect(line.severity == .bad)
        let iec = try #require(EventLine.parse(json, receivedAt: 0, utcOffset: 0, format: .binary))
        #expect(iec.text.contains("11.9 MiB allocated, limit 9.5 MiB"))
    }

    @Test func negativeOffsetsAndTheDayBoundary() {
        #expect(EventLine.localTime(0, utcOffset: -5 * 3600 - 30 * 60) == "1969-12-31T18:30:00-05:30")
        #expect(EventLine.localTime(1_764_547_445_000, utcOffset: 0) == "2025-12-01T00:04:05+00:00")
    }

    @Test func everyKindTheEngineEmitsHasItsDetails() throws {
        let cases: [(String, String)] = [
            (
                #"{"event":"level","from":"normal","to":"warning","free":1000000,"total":10000000,"root_allocated":5000000}"#,
                "level normal -> warning, 1.0 MB free of 10.0 MB, root 5.0 MB"
            ),
            (
                #"{"event":"leftover","path":"Downloads/a.part","allocated":2500,"idle_seconds":125,"rule":"ios"}"#,
                "leftover Downloads/a.part 2.5 KB, idle 2m 5s (rule ios)"
            ),
            (
                #"{"event":"cleanup","trigger":"quota_breach","removed":3,"freed":4000000,"seconds":0.25,"dry_run":false,"cleaners":[]}"#,
                "cleanup trigger quota_breach: removed 3, freed 4.0 MB in 0.25s"
            ),
            (#"{"event":"overflow"}"#, "overflow the kernel's event queue overflowed; resyncing"),
            (
                #"{"event":"ready","dirs":10,"files":20,"allocated":3000,"seconds":0.5}"#,
                "ready 10 dirs, 20 files, 3.0 KB in 0.50s"
            ),
            (
                #"{"event":"hook_failed","hook":"notify","failed_event":"level","status":2,"signal":null,"stderr_tail":"boom\n"}"#,
                "hook_failed notify for level: exit status 2: boom"
            ),
            (#"{"event":"dropped","count":7}"#, "dropped 7 event(s) dropped: this view read them too slowly"),
            (
                #"{"event":"quota_ok","apparent":10,"effective_limit":100,"limit":100,"path":"p","rule":"r","level":"normal"}"#,
                "quota_ok p 10 B apparent, limit 100 B (rule r)"
            ),
        ]
        for (json, expected) in cases {
            let line = try #require(EventLine.parse(json, receivedAt: 0, utcOffset: 0, format: .decimal))
            #expect(line.text == "1970-01-01T00:00:00+00:00 " + expected)
        }
    }

    @Test func notAnEventIsNil() {
        #expect(EventLine.parse("not json", receivedAt: 0, utcOffset: 0, format: .decimal) == nil)
        #expect(EventLine.parse(#"{"no":"event"}"#, receivedAt: 0, utcOffset: 0, format: .decimal) == nil)
    }

    @Test func controlCharactersInPathsCannotReachTheTerminal() throws {
        let line = try #require(
            EventLine.parse(
                #"{"event":"leftover","path":"a\u001b[2Jb","allocated":1,"idle_seconds":1,"rule":"r"}"#, receivedAt: 0,
                utcOffset: 0, format: .decimal))
        #expect(!line.text.unicodeScalars.contains { $0.value == 0x1b })
    }
}

@Suite("event times at the ends of Int64")
struct EventLineExtremeTests {
    @Test("a local time at either end of Int64, with any offset, is written without trapping")
    func localTimeExtremes() {
        #expect(EventLine.localTime(.max, utcOffset: 14 * 3600).hasSuffix("+14:00"))
        #expect(EventLine.localTime(.min, utcOffset: -12 * 3600).hasSuffix("-12:00"))
    }
}
