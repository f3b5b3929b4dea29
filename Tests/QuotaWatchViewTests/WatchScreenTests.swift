import QuotaWatchCore
import QuotaWatchView
import Testing

/// A sandbox as a user first sees it: a few directories, quotas with two breaches, and a
/// start-up flood of 57 leftovers logged before the first breaches.
func sandboxModel(deletes: Bool? = false) throws -> WatchModel {
    var model = WatchModel()
    model.deletes = deletes
    var first = frame(
        [
            ("tmp", 28_800_000), ("Library", 8_600_000), ("Documents", 2_100_000),
            ("SystemData", 4_096),
        ], seconds: 0, events: 0)
    first.quotas = [
        quotaRow(
            path: "Documents", used: 2_100_000, limit: 50_000_000, effectiveLimit: 50_000_000, state: .ok),
        quotaRow(
            path: "Library/Caches/com.example.video", used: 3_000_000, limit: 1_000_000, effectiveLimit: 1_000_000,
            state: .breach),
        quotaRow(
            path: "Library/Caches/com.example.feed", used: 1_500_000, limit: 1_000_000, effectiveLimit: 1_000_000,
            state: .breach),
    ]
    model.receive(first, listRows: 10)
    for index in 1...57 {
        let name = "tmp/CFNetworkDownload_A\(index < 10 ? "0" : "")\(index)x.tmp"
        let json =
            #"{"event":"leftover","path":"\#(name)","allocated":\#(300_000 + index * 7_000),"idle_seconds":10800,"rule":"cfnetwork-downloads","time":"2026-12-01T00:44:56.000Z"}"#
        model.receive(try #require(EventLine.parse(json, receivedAt: 0, utcOffset: 0, format: .decimal)))
    }
    let breach =
        #"{"allocated":3000000,"effective_limit":1000000,"event":"quota_breach","level":"normal","limit":1000000,"path":"Library/Caches/com.example.video","rule":"Library/Caches/*","time":"2026-12-01T00:44:57.000Z"}"#
    model.receive(try #require(EventLine.parse(breach, receivedAt: 0, utcOffset: 0, format: .decimal)))
    let cleanup =
        #"{"event":"cleanup","trigger":"quota_breach","removed":70,"freed":372700,"seconds":0.12,"dry_run":true,"cleaners":[],"time":"2026-12-01T00:44:59.000Z"}"#
    model.receive(try #require(EventLine.parse(cleanup, receivedAt: 0, utcOffset: 0, format: .decimal)))
    model.receive(
        frame(
            [("tmp", 28_800_000), ("Library", 8_600_000), ("Documents", 2_100_000), ("SystemData", 4_096)],
            seconds: 2, events: 40
        ).withQuotas(first.quotas), listRows: 10)
    return model
}

extension WatchFrame {
    func withQuotas(_ quotas: [QuotaStatus.Row]) -> WatchFrame {
        var copy = self
        copy.quotas = quotas
        return copy
    }
}

/// 2026-12-01T00:45:00Z, just after the fixture's last event.
let fixtureNow: Int64 = 1_796_085_900_000

@Suite struct WatchScreenTests {
    @Test func eightyByTwentyFourIsARealLayout() throws {
        let model = try sandboxModel()
        let text = layout80.screen(model, now: fixtureNow).map(\.text)
        #expect(text.count == 24)
        expectScreen(
            text,
            """
             QuotaWatch  /data/app                    12.3 MB allocated (10.0 MB apparent)
             level normal, 4.2 GB free of 10.0 GB  20 ev/s  quotas: 1 ok 2 breach
             ./                                                sort: size  sizes: allocated
              NAME                    SIZE    FILES      GROWTH     QUOTA USE
            > tmp/                 28.8 MB        3       0 B/s
              Library/              8.6 MB        3       0 B/s
              Documents/            2.1 MB        3       0 B/s   50.0 MB [..........]   4%
              SystemData/           4.1 KB        3       0 B/s
             cleanup candidates (57, 28.7 MB)
              tmp/CFNetworkDownload_A57x.tmp   699.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A56x.tmp   692.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A55x.tmp   685.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A54x.tmp   678.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A53x.tmp   671.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A52x.tmp   664.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A51x.tmp   657.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A50x.tmp   650.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A49x.tmp   643.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A48x.tmp   636.0 KB  idle 3h 0m
             events (l: all, in full)
             00:44:56 leftover 57 leftovers, 28.7 MB (see the cleanup candidates)
             00:44:57 quota_breach Library/Caches/com.example.video 3.0 MB allocated, limit…
             00:44:59 cleanup trigger quota_breach: would remove 70, would free 372.7 KB in…
             enter open  bksp up  s sort  a size  l log  c clean  p pause  ? help  q quit
            """)
    }

    @Test func noColorTurnsColoursOffWhenSetAndNotEmpty() {
        #expect(TerminalColors.wanted([:]))
        #expect(TerminalColors.wanted(["NO_COLOR": ""]))
        #expect(!TerminalColors.wanted(["NO_COLOR": "1"]))
        #expect(!TerminalColors.wanted(["NO_COLOR": "yes please"]))
    }

    @Test func pFreezesEverythingDrawnUntilPressedAgain() throws {
        var model = try sandboxModel()
        _ = model.handle(.character("p"), listRows: 10, now: fixtureNow)
        let frozen = layout80.screen(model, now: fixtureNow)
        #expect(frozen[1].text.hasPrefix(" PAUSED  level normal"))
        // Growth, events, a new leftover, a breach and a minute of ages later:
        model.receive(
            frame([("tmp", 38_800_000), ("Library", 8_600_000)], seconds: 4, events: 9_000), listRows: 10)
        let leftover =
            #"{"event":"leftover","path":"tmp/late.tmp","allocated":99000000,"idle_seconds":10800,"rule":"r","time":"2026-12-01T00:45:01.000Z"}"#
        model.receive(try #require(EventLine.parse(leftover, receivedAt: 0, utcOffset: 0, format: .decimal)))
        model.receive(EventLine(time: "2026-12-01T00:45:02+00:00", kind: "overflow", details: "x", severity: .warning))
        #expect(layout80.screen(model, now: fixtureNow + 60_000) == frozen)
        // Resumed, what came meanwhile shows.
        _ = model.handle(.character("p"), listRows: 10, now: fixtureNow + 60_000)
        let live = layout80.screen(model, now: fixtureNow + 60_000).map(\.text).joined(separator: "\n")
        #expect(!live.contains("PAUSED"))
        #expect(live.contains("tmp/late.tmp"))
        #expect(live.contains("overflow x"))
        #expect(live.contains("idle 3h 1m"))
    }

    @Test func pausedInADirectoryEnteredNoRateOfAnotherDirectoryShows() {
        var model = WatchModel()
        model.receive(frame([("Caches", 1_000)], seconds: 0), listRows: 10)
        model.receive(frame([("Caches", 9_000_000)], seconds: 1), listRows: 10)
        _ = model.handle(.character("p"), listRows: 10)
        #expect(model.rows().first?.growth != nil)
        _ = model.handle(.enter, listRows: 10)
        model.receive(frame("Caches", [("Caches", 5)], seconds: 2), listRows: 10)
        #expect(model.rows().map(\.name) == [Array("Caches".utf8)])
        #expect(model.rows().first?.growth == nil)
    }

    @Test func aNoticeGoesAfterAFewSecondsAndNeverHidesTheBreadcrumb() throws {
        var model = try sandboxModel()
        model.post(notice: "cleanup done: would remove 70, would free 372.7 KB", now: fixtureNow)
        let shown = layout80.screen(model, now: fixtureNow + 1_000).map(\.text)
        #expect(shown[2].hasPrefix(" ./ "))
        #expect(shown[23].contains("cleanup done: would remove 70"))
        let early = model.tick(now: fixtureNow + WatchModel.noticeMilliseconds - 1)
        #expect(!early && model.notice != nil)
        let due = model.tick(now: fixtureNow + WatchModel.noticeMilliseconds)
        #expect(due)
        #expect(model.notice == nil)
        #expect(layout80.screen(model, now: fixtureNow + 6_000)[23].text.hasSuffix("? help  q quit"))
    }

    @Test func theCleanQuestionSaysWhetherItDeletesAndWhatTheViewKnows() throws {
        for (deletes, says) in [
            (true, "With --clean: the cleaners DELETE"), (false, "Without --clean: a dry run"),
            (nil, "deletes only if started with --clean"),
        ] as [(Bool?, String)] {
            var model = try sandboxModel(deletes: deletes)
            _ = model.handle(.character("c"), listRows: 10)
            let text = layout80.screen(model, now: fixtureNow).map(\.text).joined(separator: "\n")
            #expect(text.contains(says))
            // 57 leftovers of 300 000 + 7 000 k bytes; breaches 2.0 MB and 0.5 MB past 1.0 MB.
            #expect(text.contains("Leftovers listed: 57, 28.7 MB."))
            #expect(text.contains("Quotas past their limits: 2, by 2.5 MB in all."))
        }
    }

    @Test func theHelpListsEveryKeyTheViewHandles() {
        var model = WatchModel()
        _ = model.handle(.character("?"), listRows: 10)
        let text = layout80.screen(model, now: 0).map(\.text).joined(separator: "\n")
        for key in ["home/end", "pgup/pgdn", "Ctrl-L", "l ", "?, h", "q, Q", "esc", "p again"] {
            #expect(text.contains(key), "help lacks \(key)")
        }
    }

    @Test func aStartUpFloodOfLeftoversIsOneLineAndTheBreachStays() throws {
        let text = layout80.screen(try sandboxModel(), now: fixtureNow).map(\.text)
        #expect(text.contains { $0.contains("leftover 57 leftovers, 28.7 MB") })
        #expect(text.contains { $0.contains("quota_breach Library/Caches/com.example.video") })
        #expect(text.filter { $0.contains("leftover tmp/") }.isEmpty)
    }

    @Test func longEventLinesEndInAnEllipsisAndLShowsThemInFull() throws {
        var model = try sandboxModel()
        let long = "Library/Caches/com.example.video 3.0 MB allocated, limit 1.0 MB (rule Library/Caches/*) and the end"
        model.receive(EventLine(time: "2026-12-01T00:45:00+00:00", kind: "quota_breach", details: long, severity: .bad))
        let compact = layout80.screen(model, now: fixtureNow).map(\.text)
        let line = try #require(compact.first { $0.contains("00:45:00 quota_breach") })
        #expect(line.hasSuffix("…"))
        #expect(DisplayWidth.builtIn.columns(line) == 80)
        _ = model.handle(.character("l"), listRows: 10)
        let full = layout80.screen(model, now: fixtureNow).map(\.text)
        #expect(full.contains { $0.hasPrefix(" events: all") })
        let joined = full.map { $0.trimmingPrefixSpaces }.joined(separator: " ")
        #expect(joined.contains("(rule Library/Caches/*) and the end"))
        // Every leftover is there, one a line, in the full log.
        #expect(full.filter { $0.contains("leftover tmp/CFNetworkDownload_A") }.count > 5)
        _ = model.handle(.escape, listRows: 10)
        #expect(layout80.screen(model, now: fixtureNow)[3].text.hasPrefix("  NAME"))
    }

    @Test func noBlankRowsWhileTheCandidatesOrTheLogHaveMore() throws {
        let text = layout80.screen(try sandboxModel(), now: fixtureNow).map(\.text)
        #expect(!text.contains { $0.trimmingPrefixSpaces.isEmpty })
    }

    @Test func nothingIsCutMidWordAtEightyColumns() throws {
        var model = try sandboxModel()
        model.attachedTo = "/run/user/1000/quotawatch/a-very-long-socket-name-for-this-sandbox.sock"
        _ = model.handle(.character("p"), listRows: 10)
        let text = layout80.screen(model, now: fixtureNow).map(\.text)
        #expect(text[23].hasSuffix("? help  q quit"))
        #expect(text[23].contains("p resume"))
        #expect(text[1].hasSuffix(".sock") || !text[1].contains("attached"))
        for line in text { #expect(DisplayWidth.builtIn.columns(line) <= 80) }
    }

    /// The name column is the window's (a quarter of it), not the longest name's, so it does
    /// not move between levels; the sizes stay near their names all the same.
    @Test func atOneHundredSixtyColumnsSizesStayBesideTheirNames() throws {
        let wide = WatchLayout(rows: 50, columns: 160, width: .builtIn)
        let text = wide.screen(try sandboxModel(), now: fixtureNow).map(\.text)
        #expect(text.count == 50)
        expectScreen(
            text,
            """
             QuotaWatch  /data/app                                                                                                    12.3 MB allocated (10.0 MB apparent)
             level normal, 4.2 GB free of 10.0 GB  20 ev/s  quotas: 1 ok 2 breach
             ./                                                                                                                                sort: size  sizes: allocated
              NAME                                                 SIZE    FILES      GROWTH     QUOTA USE
            > tmp/                                              28.8 MB        3       0 B/s
              Library/                                           8.6 MB        3       0 B/s
              Documents/                                         2.1 MB        3       0 B/s   50.0 MB [..........]   4%
              SystemData/                                        4.1 KB        3       0 B/s
             cleanup candidates (57, 28.7 MB)
              tmp/CFNetworkDownload_A57x.tmp   699.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A56x.tmp   692.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A55x.tmp   685.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A54x.tmp   678.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A53x.tmp   671.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A52x.tmp   664.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A51x.tmp   657.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A50x.tmp   650.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A49x.tmp   643.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A48x.tmp   636.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A47x.tmp   629.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A46x.tmp   622.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A45x.tmp   615.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A44x.tmp   608.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A43x.tmp   601.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A42x.tmp   594.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A41x.tmp   587.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A40x.tmp   580.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A39x.tmp   573.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A38x.tmp   566.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A37x.tmp   559.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A36x.tmp   552.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A35x.tmp   545.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A34x.tmp   538.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A33x.tmp   531.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A32x.tmp   524.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A31x.tmp   517.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A30x.tmp   510.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A29x.tmp   503.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A28x.tmp   496.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A27x.tmp   489.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A26x.tmp   482.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A25x.tmp   475.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A24x.tmp   468.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A23x.tmp   461.0 KB  idle 3h 0m
              tmp/CFNetworkDownload_A22x.tmp   454.0 KB  idle 3h 0m
             events (l: all, in full)
             00:44:56 leftover 57 leftovers, 28.7 MB (see the cleanup candidates)
             00:44:57 quota_breach Library/Caches/com.example.video 3.0 MB allocated, limit 1.0 MB (rule Library/Caches/*)
             00:44:59 cleanup trigger quota_breach: would remove 70, would free 372.7 KB in 0.12s (dry run)
             arrows move  enter open  bksp up  s sort  a size  l log  c clean  d delete  p pause  ? help  q quit
            """)
        let row = try #require(text.first { $0.contains("Library/") })
        let name = try #require(row.range(of: "Library/"))
        let size = try #require(row.range(of: "8.6 MB"))
        #expect(row.distance(from: name.upperBound, to: size.lowerBound) < 160 / 3)
        let candidate = try #require(text.first { $0.contains("CFNetworkDownload_A57x.tmp") })
        let path = try #require(candidate.range(of: "A57x.tmp"))
        let bytes = try #require(candidate.range(of: "699.0 KB"))
        #expect(candidate.distance(from: path.upperBound, to: bytes.lowerBound) < 20)
    }
}

/// `screen`'s lines, trailing spaces aside, are `expected`'s.
func expectScreen(_ screen: [String], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let shown = screen.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    #expect(
        shown == expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
        sourceLocation: sourceLocation)
}

extension String {
    var trimmingPrefixSpaces: String { String(drop { $0 == " " }) }
}
