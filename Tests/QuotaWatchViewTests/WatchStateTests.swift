import QuotaWatchCore
import QuotaWatchView
import Testing

@Suite struct WatchStateTests {
    @Test func sortOrdersCycleThroughSizeNameAndGrowth() {
        var model = WatchModel()
        model.receive(frame([("b", 300), ("a", 200), ("c", 100)], seconds: 0), listRows: 10)
        model.receive(frame([("b", 300), ("a", 200), ("c", 5_100)], seconds: 5), listRows: 10)
        #expect(model.rows().map(\.display) == ["c", "b", "a"])
        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.state.sort == .name)
        #expect(model.rows().map(\.display) == ["a", "b", "c"])
        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.state.sort == .growth)
        #expect(model.rows().first?.display == "c")
        #expect(model.rows().first?.growth == 1_000)
        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.state.sort == .size)
    }

    @Test func enterDescendsAndBackspaceComesBackToTheSameRow() {
        var model = WatchModel()
        model.receive(frame([("big", 300), ("mid", 200), ("small", 100)]), listRows: 10)
        _ = model.handle(.down, listRows: 10)
        let command = model.handle(.enter, listRows: 10)
        #expect(command == .showDirectory(Array("mid".utf8)))
        model.receive(frame("mid", [("inner", 50)]), listRows: 10)
        #expect(model.rows().map(\.display) == ["inner"])
        #expect(model.handle(.enter, listRows: 10) == .showDirectory(Array("mid/inner".utf8)))
        #expect(model.handle(.backspace, listRows: 10) == .showDirectory(Array("mid".utf8)))
        #expect(model.handle(.backspace, listRows: 10) == .showDirectory([]))
        model.receive(frame([("big", 300), ("mid", 200), ("small", 100)]), listRows: 10)
        #expect(model.state.cursor.selected == 1)
        #expect(model.handle(.backspace, listRows: 10) == .none)
    }

    @Test("backspace brings the parent back with the row that was at the top still there, as ncdu does")
    func backspaceRestoresTheTopRow() {
        let names = (0..<40).map { (String(format: "d%02d", $0), UInt64(1_000)) }
        var model = WatchModel()
        model.receive(frame(names), listRows: 10)
        _ = model.handle(.pageDown, listRows: 10)
        _ = model.handle(.pageDown, listRows: 10)
        for _ in 0..<5 { _ = model.handle(.up, listRows: 10) }
        #expect(model.state.cursor.selected == 13)
        #expect(model.state.cursor.firstVisible == 9)
        _ = model.handle(.enter, listRows: 10)
        model.receive(frame("d13", [("inner", 50)]), listRows: 10)
        _ = model.handle(.backspace, listRows: 10)
        model.receive(frame(names), listRows: 10)
        #expect(model.state.cursor.selected == 13)
        #expect(model.state.cursor.firstVisible == 9)
    }

    @Test("a parent's first frame is fitted to the list's rows with that frame in: a long log no longer shrinks them")
    func backspaceMeasuresTheListWithItsRows() throws {
        let names = (0..<40).map { (String(format: "d%02d", $0), UInt64(1_000)) }
        var model = WatchModel()
        for index in 0..<30 {
            model.receive(EventLine(time: "00:00:\(index)", kind: "log", details: "line \(index)", severity: .info))
        }
        model.receive(frame(names), listRows: layout80.listRows)
        _ = model.handle(.down, listRows: layout80.listRows(model))
        _ = model.handle(.enter, listRows: layout80.listRows(model))
        model.receive(frame("d01", [("inner", 50)]), listRows: layout80.listRows)
        _ = model.handle(.backspace, listRows: layout80.listRows(model))
        model.receive(frame(names), listRows: layout80.listRows)
        #expect(model.state.cursor.selected == 1)
        #expect(model.state.cursor.firstVisible == 0)
        let list = layout80.screen(model, now: 0).map(\.text)
        #expect(list[4].hasPrefix("  d00/"), "\(list.joined(separator: "\n"))")
    }

    @Test("the directory shown removed, the view goes up to the nearest one still there and says so in the footer")
    func aRemovedDirectoryTakesTheViewUp() {
        var model = WatchModel()
        model.receive(frame([("a", 300)]), listRows: 10)
        _ = model.handle(.enter, listRows: 10)
        model.receive(frame("a", [("b", 100)]), listRows: 10)
        _ = model.handle(.enter, listRows: 10)
        model.receive(frame("a/b", [("c", 10)]), listRows: 10)
        // a and a/b are removed together: a/b's frame says it is gone, then a's does.
        var gone = frame("a/b", [])
        gone.directoryExists = false
        #expect(model.receive(gone, listRows: 10, now: 1_000) == .showDirectory(Array("a".utf8)))
        #expect(model.state.directory == Array("a".utf8))
        #expect(model.notice?.contains("./a/b is gone") == true, "\(model.notice ?? "no notice")")
        gone = frame("a", [])
        gone.directoryExists = false
        #expect(model.receive(gone, listRows: 10, now: 2_000) == .showDirectory([]))
        #expect(model.state.directory.isEmpty)
        #expect(model.notice == "./a/b is gone (removed or moved): showing ./", "\(model.notice ?? "no notice")")
        model.receive(frame([("d", 300)]), listRows: 10)
        #expect(model.rows().map(\.display) == ["d"])
        let screen = layout80.screen(model, now: 2_000).map(\.text)
        #expect(screen[23].contains("./a/b is gone (removed or moved): showing ./"), "\(screen[23])")
    }

    @Test func aFrameOfAnotherDirectoryIsIgnored() {
        var model = WatchModel()
        model.receive(frame([("a", 1)]), listRows: 10)
        model.receive(frame("elsewhere", [("x", 1)]), listRows: 10)
        #expect(model.rows().map(\.display) == ["a"])
    }

    @Test func cleaningNeedsAConfirmation() {
        var model = WatchModel()
        #expect(model.handle(.character("c"), listRows: 10) == .none)
        #expect(model.state.dialog == .confirmClean)
        #expect(model.handle(.character("x"), listRows: 10) == .none)
        #expect(model.state.dialog == .confirmClean)
        #expect(model.handle(.character("n"), listRows: 10) == .none)
        #expect(model.state.dialog == .none)
        _ = model.handle(.character("c"), listRows: 10)
        // Not drawn yet: y is blind and does nothing.
        #expect(model.handle(.character("y"), listRows: 10) == .none)
        model.state.noteDrawn(questionWhole: true)
        #expect(model.handle(.character("y"), listRows: 10) == .cleanNow)
        #expect(model.handle(.character("c"), listRows: 10, cleanAllowed: false) == .none)
        #expect(model.state.dialog == .none)
    }

    @Test func theCleanQuestionInATinyWindowActsOnNothing() {
        var model = WatchModel()
        _ = model.handle(.character("c"), listRows: 10)
        for (columns, rows) in [(1, 1), (5, 2), (79, 23)] {
            let layout = WatchLayout(rows: rows, columns: columns, width: .builtIn)
            model.state.noteDrawn(questionWhole: layout.showsQuestionWhole(model))
            #expect(model.handle(.character("y"), listRows: 1) == .none, "y acted at \(columns)x\(rows)")
            #expect(model.state.dialog == .confirmClean)
        }
        let layout = WatchLayout(rows: 24, columns: 80, width: .builtIn)
        model.state.noteDrawn(questionWhole: layout.showsQuestionWhole(model))
        #expect(model.handle(.resize, listRows: 10) == .none)
        #expect(model.handle(.character("y"), listRows: 10) == .none, "y acted before a drawing at the new size")
        model.state.noteDrawn(questionWhole: layout.showsQuestionWhole(model))
        #expect(model.handle(.character("y"), listRows: 10) == .cleanNow)
    }

    @Test func pauseHoldsTheListAndApparentToggles() {
        var model = WatchModel()
        model.receive(frame([("a", 100)]), listRows: 10)
        _ = model.handle(.character("p"), listRows: 10)
        model.receive(frame([("a", 900)]), listRows: 10)
        #expect(model.rows().first?.size == 100)
        _ = model.handle(.character("a"), listRows: 10)
        #expect(model.rows().first?.size == 50)
        _ = model.handle(.character("p"), listRows: 10)
        model.receive(frame([("a", 900)]), listRows: 10)
        #expect(model.rows().first?.size == 450)
    }

    @Test func helpClosesOnAnyKeyAndQuitQuits() {
        var model = WatchModel()
        _ = model.handle(.character("?"), listRows: 10)
        #expect(model.state.dialog == .help)
        #expect(model.handle(.down, listRows: 10) == .none)
        #expect(model.state.dialog == .none)
        #expect(model.handle(.character("q"), listRows: 10) == .quit)
    }

    @Test func arrowsMoveTheCursorWithinTheList() {
        var model = WatchModel()
        model.receive(frame((0..<30).map { ("d\($0)", UInt64(1000 - $0)) }), listRows: 5)
        for _ in 0..<12 { _ = model.handle(.down, listRows: 5) }
        #expect(model.state.cursor.selected == 12)
        #expect(model.state.cursor.visibleRange(count: 30, visibleRows: 5) == 8..<13)
        _ = model.handle(.up, listRows: 5)
        #expect(model.state.cursor.selected == 11)
    }
}

@Suite struct GrowthTrackerTests {
    @Test func ratesComeFromSuccessiveFramesAndResetOnANewDirectory() {
        var tracker = GrowthTracker(window: 5)
        tracker.record(frame([("a", 1_000)], seconds: 10, events: 0))
        #expect(tracker.bytesPerSecond(Array("a".utf8)) == nil)
        tracker.record(frame([("a", 3_000)], seconds: 12, events: 100))
        #expect(tracker.eventsPerSecond == 50)
        // The forecast's estimator: growth over at least its minimum span (5 s of the 30 s window).
        #expect(tracker.bytesPerSecond(Array("a".utf8)) == 400)
        for second in 13...20 {
            tracker.record(frame([("a", UInt64(1_000 * (second - 10) + 1_000))], seconds: Double(second)))
        }
        #expect(tracker.bytesPerSecond(Array("a".utf8)) == 1_000, "a steady writer, measured exactly")
        for second in 21...60 {
            tracker.record(frame([("a", UInt64(11_000 - 100 * (second - 20)))], seconds: Double(second)))
        }
        #expect(tracker.bytesPerSecond(Array("a".utf8)).map { abs($0 + 100) < 1e-6 } == true, "shrinking")
        tracker.record(frame("other", [("a", 9_000)], seconds: 61))
        #expect(tracker.bytesPerSecond(Array("a".utf8)) == nil)
        #expect(WatchLayout.growthText(1_500_000, .decimal) == "+1.5 MB/s")
        #expect(WatchLayout.growthText(-300, .decimal) == "-300 B/s")
        #expect(WatchLayout.growthText(0.2, .decimal) == "0 B/s")
    }
}

@Suite("the list keeps its item and shows the strictest rule")
struct WatchListSelectionTests {
    @Test("the highlight follows its directory when sizes change and the list re-sorts, and on s")
    func highlightFollowsItsItem() {
        var model = WatchModel()
        model.receive(frame([("a", 300), ("b", 200), ("c", 100)]), listRows: 10)
        _ = model.handle(.down, listRows: 10)
        #expect(model.rows()[model.state.cursor.selected].name == Array("b".utf8))
        // b grows past a: the list re-sorts, the highlight moves with b.
        model.receive(frame([("a", 300), ("b", 900), ("c", 100)]), listRows: 10)
        #expect(model.state.cursor.selected == 0)
        #expect(model.rows()[model.state.cursor.selected].name == Array("b".utf8))
        // s sorts by name: b is second, and still highlighted.
        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.state.sort == .name)
        #expect(model.rows()[model.state.cursor.selected].name == Array("b".utf8))
        // Enter opens what is highlighted.
        #expect(model.handle(.enter, listRows: 10) == .showDirectory(Array("b".utf8)))
    }

    @Test("a highlighted directory that goes away leaves the highlight in range")
    func highlightOfAGoneItem() {
        var model = WatchModel()
        model.receive(frame([("a", 300), ("b", 200), ("c", 100)]), listRows: 10)
        _ = model.handle(.down, listRows: 10)
        _ = model.handle(.down, listRows: 10)
        model.receive(frame([("a", 300)]), listRows: 10)
        #expect(model.state.cursor.selected == 0)
    }

    @Test("a directory under two rules shows the one in breach, not the looser one's green bar")
    func strictestRule() {
        var model = WatchModel()
        var shown = frame("Library/Caches", [("com.example.video", 22_000_000)])
        shown.quotas = [
            quotaRow(
                path: "Library/Caches/com.example.video", used: 22_000_000, limit: 50_000_000,
                effectiveLimit: 50_000_000, state: .ok),
            quotaRow(
                path: "Library/Caches/com.example.video", used: 22_000_000, limit: 16_000_000,
                effectiveLimit: 16_000_000, state: .breach),
            quotaRow(
                path: "Library/Caches/com.example.video", used: 22_000_000, limit: 20_000_000,
                effectiveLimit: 30_000_000, state: .warning),
        ]
        _ = model.handle(.enter, listRows: 10)
        model.state.directory = Array("Library/Caches".utf8)
        model.receive(shown, listRows: 10)
        let quota = model.rows().first?.quota
        #expect(quota?.state == .breach && quota?.limit == 16_000_000, "\(String(describing: quota))")
        // The order given does not matter.
        shown.quotas.reverse()
        model.receive(shown, listRows: 10)
        #expect(model.rows().first?.quota?.limit == 16_000_000)
    }
}
