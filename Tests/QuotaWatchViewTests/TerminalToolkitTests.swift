import QuotaWatchCore
import QuotaWatchView
import Testing

@Suite struct DisplayWidthTests {
    let width = DisplayWidth.builtIn

    @Test func wideCharactersTakeTwoColumnsAndMarksNone() {
        #expect(width.columns("abc") == 3)
        #expect(width.columns("日本語") == 6)
        #expect(width.columns("e\u{301}") == 1)
        #expect(width.columns("📦") == 2)
    }

    @Test func truncationNeverSplitsAWideCharacter() {
        let cut = width.truncated("日本語のファイル", to: 6)
        #expect(cut == "日本 …")
        #expect(width.columns(cut) == 6)
        #expect(width.truncated("short", to: 10) == "short")
        #expect(width.truncated("abcdef", to: 4) == "abc…")
        #expect(width.truncated("abc", to: 0) == "")
    }

    @Test func frontTruncationKeepsTheEnd() {
        #expect(width.truncatedFront("Library/Caches/Feed", to: 8) == "…es/Feed")
        #expect(width.columns(width.truncatedFront("日本語/日本語", to: 6)) == 6)
    }

    @Test func paddingCountsColumnsNotCharacters() {
        #expect(width.padded("日本", to: 6) == "日本  ")
        #expect(width.padded("7", to: 3, alignRight: true) == "  7")
    }

    @Test func controlCharactersAreShownEscaped() {
        let shown = width.printable("a\nb\u{1b}[31m")
        #expect(shown == #"a\x0ab\x1b[31m"#, "the one form every human output uses")
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 })
    }
}

@Suite struct StyledLineTests {
    @Test func clippingKeepsStylesAndStopsAtTheWidth() {
        let line = StyledLine([StyledSpan("ab", .bold), StyledSpan("日本", .dim)])
        let clipped = line.clipped(to: 4, width: .builtIn)
        #expect(clipped.spans == [StyledSpan("ab", .bold), StyledSpan("日", .dim)])
        #expect(line.clipped(to: 5, width: .builtIn).text == "ab日")
    }
}

@Suite struct ListCursorTests {
    @Test func scrollingFollowsTheSelection() {
        var cursor = ListCursor()
        for _ in 0..<7 { cursor.handle(.down, count: 20, visibleRows: 5) }
        #expect(cursor.selected == 7)
        #expect(cursor.visibleRange(count: 20, visibleRows: 5) == 3..<8)
        cursor.handle(.end, count: 20, visibleRows: 5)
        #expect(cursor.visibleRange(count: 20, visibleRows: 5) == 15..<20)
        cursor.handle(.pageUp, count: 20, visibleRows: 5)
        #expect(cursor.selected == 15)
        cursor.handle(.home, count: 20, visibleRows: 5)
        #expect(cursor.selected == 0 && cursor.firstVisible == 0)
        let handled = cursor.handle(.enter, count: 20, visibleRows: 5)
        #expect(!handled)
    }

    @Test func aShrinkingListPullsTheCursorBack() {
        var cursor = ListCursor()
        cursor.select(9, count: 10, visibleRows: 4)
        cursor.clamp(count: 3, visibleRows: 4)
        #expect(cursor.selected == 2)
        #expect(cursor.visibleRange(count: 3, visibleRows: 4) == 0..<3)
        cursor.clamp(count: 0, visibleRows: 4)
        #expect(cursor.visibleRange(count: 0, visibleRows: 4).isEmpty)
    }
}

@Suite struct OverlayTests {
    @Test func aDialogIsDrawnInTheMiddleAndAnswersYesOrNo() {
        let dialog = ConfirmDialog(question: "Run every cleaner now?")
        let screen = Array(repeating: StyledLine(String(repeating: "x", count: 80)), count: 24)
        let drawn = dialog.overlay.drawn(over: screen, rows: 24, columns: 80, width: .builtIn)
        #expect(drawn.count == 24)
        #expect(drawn.contains { $0.text.contains("Run every cleaner now?") })
        #expect(drawn.allSatisfy { DisplayWidth.builtIn.columns($0.text) == 80 })
        #expect(drawn.first?.text == screen.first?.text)
        #expect(dialog.answer(to: .character("y")) == .confirmed)
        #expect(dialog.answer(to: .escape) == .cancelled)
        #expect(dialog.answer(to: .down) == nil)
    }

    @Test(
        "the help box clears all it covers and a one-cell margin around it: no text beneath shows at its edges",
        arguments: [(80, 24), (120, 30), (200, 50)])
    func theOverlayClearsItsBoxAndAMargin(columns: Int, rows: Int) {
        let screen = Array(repeating: StyledLine(String(repeating: "x", count: columns)), count: rows)
        let drawn = WatchLayout.help.drawn(over: screen, rows: rows, columns: columns, width: .builtIn)
        // The cells that are no longer x: one rectangle, the box and its margin.
        let cleared = drawn.enumerated().compactMap { row, line -> (row: Int, columns: Range<Int>)? in
            let text = Array(line.text)
            guard let first = text.firstIndex(where: { $0 != "x" }), let last = text.lastIndex(where: { $0 != "x" })
            else { return nil }
            #expect(!text[first...last].contains("x"), "x inside the box on row \(row): \(line.text)")
            return (row, first..<(last + 1))
        }
        let keys = WatchLayout.keys.count
        let boxColumns = min(columns, WatchLayout.help.lines.map { $0.columns(.builtIn) }.max()! + 4)
        #expect(cleared.count == keys + 4 + 2, "rows cleared: \(cleared.map(\.row))")
        #expect(Set(cleared.map(\.columns)).count == 1)
        #expect(cleared.first?.columns.count == min(columns, boxColumns + 2))
        for (key, action) in WatchLayout.keys {
            #expect(drawn.contains { $0.text.contains(action) }, "\(key): '\(action)' is cut at \(columns) columns")
        }
    }

    @Test func anOverlayOverWideCharactersKeepsTheColumns() {
        let screen = Array(repeating: StyledLine(String(repeating: "日", count: 40)), count: 10)
        let help = Overlay.help(title: "Keys", keys: [("q", "quit"), ("?", "help")], footer: "any key closes")
        let drawn = help.drawn(over: screen, rows: 10, columns: 80, width: .builtIn)
        #expect(drawn.allSatisfy { DisplayWidth.builtIn.columns($0.text) == 80 })
        #expect(drawn.contains { $0.text.contains("q  quit") })
    }
}
