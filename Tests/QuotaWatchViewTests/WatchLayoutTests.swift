import QuotaWatchCore
import QuotaWatchView
import Testing

/// A frame of `directory` with children of the given names and allocated sizes.
func frame(_ children: [(String, UInt64)], seconds: Double = 0, events: UInt64 = 0) -> WatchFrame {
    frame("", children, seconds: seconds, events: events)
}

func frame(
    _ directory: String, _ children: [(String, UInt64)], seconds: Double = 0, events: UInt64 = 0
) -> WatchFrame {
    var frame = WatchFrame(root: "/data/app", directory: Array(directory.utf8))
    frame.rootAllocated = 12_345_678
    frame.rootApparent = 10_000_000
    frame.level = .normal
    frame.free = 4_200_000_000
    frame.diskTotal = 10_000_000_000
    frame.entries = children.map { name, size in
        WatchFrame.Entry(name: Array(name.utf8), allocated: size, apparent: size / 2, files: 3, dirs: 0)
    }
    frame.seconds = seconds
    frame.events = events
    return frame
}

let layout80 = WatchLayout(rows: 24, columns: 80, width: .builtIn)

@Suite struct WatchLayoutTests {
    @Test func theHeaderShowsRootTotalsLevelAndRate() {
        var model = WatchModel()
        model.receive(frame([("a", 1)], seconds: 0, events: 0), listRows: 10)
        model.receive(frame([("a", 1)], seconds: 2, events: 400), listRows: 10)
        let screen = layout80.screen(model, now: 0)
        #expect(screen.count == 24)
        #expect(screen[0].text.contains("/data/app"))
        #expect(screen[0].text.contains("12.3 MB allocated (10.0 MB apparent)"))
        #expect(screen[1].text.contains("level normal, 4.2 GB free of 10.0 GB"))
        #expect(screen[1].text.contains("200 ev/s"))
        #expect(screen.allSatisfy { DisplayWidth.builtIn.columns($0.text) <= 80 })
    }

    @Test func withIOSTheStatusLineShowsThePhonesFigureInDecimalUnitsWhateverTheTableUses() {
        var model = WatchModel(format: .binary)
        var withPhone = frame([("Library", 9_000_000)])
        withPhone.phone = PhoneStorage(
            version: IOSVersion(major: 16), rawAllocated: 12_345_678, rawApparent: 10_000_000,
            cachesAllocated: 2_000_000, appAllocated: 5_300_000)
        model.receive(withPhone, listRows: 10)
        let screen = layout80.screen(model, now: 0)
        // iOS 16 leaves Library/Caches out: 12 345 678 - 2 000 000 + 5 300 000.
        #expect(screen[1].text.contains("iOS 16: 15.6 MB"))
        #expect(screen[0].text.contains("11.8 MiB allocated"))
        #expect(screen.allSatisfy { DisplayWidth.builtIn.columns($0.text) <= 80 })
    }

    @Test func iecUnitsApplyEverywhere() {
        var model = WatchModel(format: .binary)
        model.receive(frame([("a", 1_048_576)]), listRows: 10)
        let text = layout80.screen(model, now: 0).map(\.text).joined(separator: "\n")
        #expect(text.contains("11.8 MiB allocated"))
        #expect(text.contains("1.0 MiB"))
    }

    @Test func aBreachedRowShowsItsQuotaAndARedFullBar() {
        var model = WatchModel()
        var breached = frame([("Feed", 15_000_000), ("Other", 1_000)])
        breached.quotas = [
            quotaRow(
                path: "Feed", used: 15_000_000, limit: 10_000_000, effectiveLimit: 10_000_000, state: .breach)
        ]
        model.receive(breached, listRows: 10)
        let line = layout80.row(model.rows()[0], selected: false, format: .decimal)
        #expect(line.text.contains("Feed/"))
        #expect(line.text.contains("15.0 MB"))
        #expect(line.text.contains("10.0 MB [##########] 150%"))
        #expect(line.spans.contains { $0.text == "##########" && $0.style.foreground == .red })
        #expect(DisplayWidth.builtIn.columns(line.text) <= 80)
    }

    @Test(
        "a bar is proportional, ncdu's way: a cell per tenth, none below one, the empty cells shown",
        arguments: [(1, 0), (49, 0), (99, 0), (100, 1), (199, 1), (200, 2), (999, 9), (1000, 10)])
    func barCellsPerTenth(used: UInt64, cells: Int) {
        let bar = WatchLayout.bar(used: used, limit: 1000, inner: 10)
        #expect(bar.filled == String(repeating: "#", count: cells))
        #expect(bar.empty == String(repeating: ".", count: 10 - cells))
    }

    @Test(
        "the columns stay put between levels: a level of long names and one of short names put SIZE in the same place",
        arguments: [80, 120, 200])
    func columnsAreStableBetweenLevels(columns: Int) {
        let layout = WatchLayout(rows: 24, columns: columns, width: .builtIn)
        var model = WatchModel()
        model.receive(frame([("a", 2_000), ("b", 1_000)]), listRows: 10)
        let shortNames = layout.screen(model, now: 0).map(\.text)
        _ = model.handle(.enter, listRows: 10)
        model.receive(frame("a", [("a-directory-name-of-some-thirty-two", 1_000)]), listRows: 10)
        let longNames = layout.screen(model, now: 0).map(\.text)
        func sizeColumn(_ headings: String) -> Int? {
            headings.range(of: "SIZE").map { headings.distance(from: headings.startIndex, to: $0.lowerBound) }
        }
        #expect(sizeColumn(shortNames[3]) != nil)
        #expect(
            sizeColumn(shortNames[3]) == sizeColumn(longNames[3]),
            "\(shortNames[3])\n\(longNames[3])")
    }

    @Test("at 80 columns a level without a quota row gives the QUOTA and USE columns' room to the name")
    func namesTakeTheRoomOfEmptyQuotaColumns() {
        let name = "com.example.a-cache-directory-of-40-chars"
        var model = WatchModel()
        model.receive(frame([(name, 2_000), ("b", 1_000)]), listRows: 10)
        let screen = layout80.screen(model, now: 0).map(\.text)
        #expect(screen[4].contains(name + "/"), "\(screen[4])")
        #expect(!screen[3].contains("QUOTA"))
        #expect(screen.allSatisfy { DisplayWidth.builtIn.columns($0) <= 80 })
    }

    @Test("attached at 80 columns, the socket stays in the header: the free space and the rate go first")
    func theAttachedMarkerStaysAtEightyColumns() throws {
        var model = try sandboxModel()
        model.attachedTo = "/run/user/1000/quotawatch/a-very-long-socket-name-for-this-sandbox.sock"
        let status = layout80.screen(model, now: fixtureNow)[1].text
        #expect(status.contains("attached: …"), "\(status)")
        #expect(status.hasSuffix("sandbox.sock"), "\(status)")
        #expect(status.contains("level normal") && status.contains("2 breach"), "\(status)")
        #expect(DisplayWidth.builtIn.columns(status) <= 80)
    }

    @Test func barsAreColouredByStateAndScaledToTheLimit() {
        let half = WatchLayout.bar(used: 5, limit: 10, inner: 10)
        #expect(half.filled == "#####" && half.empty == "....." && half.percent == "50%")
        #expect(WatchLayout.bar(used: 0, limit: 1000, inner: 10).filled.isEmpty)
        #expect(WatchLayout.bar(used: 100, limit: 1, inner: 10).percent == ">999%")
        // A limit of 1 B (the grammar allows it) against a huge directory must not trap.
        #expect(WatchLayout.bar(used: UInt64.max, limit: 1, inner: 10).filled == "##########")
        #expect(WatchLayout.quotaStyle("ok").foreground == .green)
        #expect(WatchLayout.quotaStyle("warning").foreground == .yellow)
        #expect(WatchLayout.quotaStyle("breach").foreground == .red)
    }

    @Test func wideAndNonUTF8NamesKeepTheColumnsAligned() {
        var model = WatchModel()
        var tricky = frame([("ascii", 3_000), ("日本語のとても長いディレクトリの名前です", 2_000), ("x", 1_000)])
        tricky.entries.append(
            WatchFrame.Entry(name: [0x62, 0xff, 0x0a, 0x63], allocated: 500, apparent: 500, files: 1, dirs: 0))
        model.receive(tricky, listRows: 10)
        let lines = model.rows().map { layout80.row($0, selected: false, format: .decimal) }
        // The name span is padded to the same number of columns whatever its characters.
        let sizeColumn = lines.map { DisplayWidth.builtIn.columns($0.spans[1].text) }
        #expect(
            lines.allSatisfy {
                DisplayWidth.builtIn.columns($0.text) == lines.map { DisplayWidth.builtIn.columns($0.text) }.first
            })
        #expect(Set(sizeColumn).count == 1)
        #expect(lines[3].text.contains(#"b\xff\x0ac/"#))
        #expect(lines[1].text.contains("…"))
    }

    @Test func belowEightyByTwentyFourItSaysSo() {
        let small = WatchLayout(rows: 20, columns: 70, width: .builtIn)
        #expect(small.isTooSmall)
        let text = small.screen(WatchModel(), now: 0).map(\.text).joined(separator: "\n")
        #expect(text.contains("window too small: 70x20"))
        #expect(text.contains("at least 80x24"))
        #expect(!WatchLayout(rows: 24, columns: 80, width: .builtIn).isTooSmall)
    }

    @Test func theFirstCrawlShowsProgress() {
        var model = WatchModel()
        var crawling = frame([])
        crawling.crawl = (directories: 120, files: 4_500)
        model.receive(crawling, listRows: 10)
        let screen = layout80.screen(model, now: 0)
        #expect(screen[2].text.contains("first crawl: 120 directories, 4500 files so far"))
    }

    @Test func candidatesShowTheirAgeAndGoWhenCleaned() throws {
        var model = WatchModel()
        model.receive(frame([("a", 1)]), listRows: 10)
        let leftover = try #require(
            EventLine.parse(
                #"{"event":"leftover","path":"Downloads/x.part","allocated":2000000,"idle_seconds":60,"rule":"r","time":"2026-12-01T00:00:00.000Z"}"#,
                receivedAt: 0, utcOffset: 0, format: .decimal))
        model.receive(leftover)
        let reported = leftover.leftover!.reportedAt
        let text = layout80.screen(model, now: reported + 90_000).map(\.text).joined(separator: "\n")
        #expect(text.contains("cleanup candidates (1, 2.0 MB)"))
        #expect(text.contains("Downloads/x.part"))
        #expect(text.contains("idle 2m 30s"))
        let cleanup = try #require(
            EventLine.parse(
                #"{"event":"cleanup","trigger":"manual","removed":1,"freed":2000000,"seconds":0.01,"dry_run":false,"cleaners":[{"name":"leftovers","removed":1,"freed":2000000,"error":null,"paths":["Downloads/x.part"]}],"time":"2026-12-01T00:00:01.000Z"}"#,
                receivedAt: 0, utcOffset: 0, format: .decimal))
        model.receive(cleanup)
        #expect(model.candidates.isEmpty)
    }

    @Test func theLogScrollsKeepingTheNewest() {
        var model = WatchModel()
        model.logCapacity = 5
        for index in 0..<8 {
            model.receive(
                EventLine(
                    time: "2026-12-01T00:00:0\(index)+00:00", kind: "overflow", details: "\(index)", severity: .warning)
            )
        }
        #expect(model.log.map(\.details) == ["3", "4", "5", "6", "7"])
        let screen = layout80.screen(model, now: 0)
        let logLines = screen.filter { $0.text.contains("overflow") }
        #expect(logLines.last?.text.contains("00:00:07 overflow 7") == true)
        // The log has the rows the short list leaves: all five kept show, the evicted do not.
        #expect(logLines.map { String($0.text.suffix(1)) } == ["3", "4", "5", "6", "7"])
    }

    @Test func theHelpOverlayListsEveryKey() {
        var model = WatchModel()
        _ = model.handle(.character("?"), listRows: 10)
        let text = layout80.screen(model, now: 0).map(\.text).joined(separator: "\n")
        for key in ["enter", "backspace", "s ", "a ", "c ", "p ", "q "] { #expect(text.contains(key)) }
    }

    @Test func aCutListSaysHowManyMoreOnItsLastRowAndEndReachesItsLastEntry() {
        var model = WatchModel()
        var cut = frame((0..<40).map { ("d\($0)", UInt64(1_000 - $0)) })
        cut.omittedEntries = 174
        let layout = WatchLayout(rows: 24, columns: 80, width: .builtIn)
        model.receive(cut, listRows: layout.listRows(model))
        _ = model.handle(.end, listRows: layout.listRows(model))
        let text = layout.screen(model, now: 0).map(\.text)
        let more = text.firstIndex { $0.contains("… 174 more (the largest 40 are listed)") }
        let last = text.firstIndex { $0.hasPrefix("> d39/") }
        #expect(more != nil && last != nil, "\(text)")
        if let more, let last { #expect(last + 1 == more, "the last entry sits right above the mark: \(text)") }
    }

    @Test func unreadableDirectoriesMarkTheViewIncomplete() {
        var model = WatchModel()
        var incomplete = frame([("a", 100)])
        incomplete.unreadable = 2
        model.receive(incomplete, listRows: 10)
        let text = WatchLayout(rows: 24, columns: 100, width: .builtIn).screen(model, now: 0).map(\.text)
        #expect(text[1].contains("INCOMPLETE (2 unreadable)"), "\(text[1])")
    }
}
