import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchView
import Testing

@Suite("clean: the interactive page, keys in and lines out")
struct CleanPickerTests {
    private static let now: Int64 = 1_700_000_000_000_000_000

    private func item(_ path: String, bytes: UInt64, inode: UInt64) -> CleanItem {
        CleanItem(
            path: Array(path.utf8),
            status: FileStatus(
                device: 1, inode: inode, kind: .regular, linkCount: 1, apparentBytes: bytes, allocatedBytes: bytes,
                modifiedNanoseconds: Self.now - 3 * 86_400_000_000_000))!
    }

    private var picker: CleanPicker {
        let items = [
            item("tmp/CFNetworkDownload_a.tmp", bytes: 4096, inode: 1),
            item("Library/Caches/com.example.feed/a.jpg", bytes: 40960, inode: 2),
            item("Library/Caches/com.example.maps/t.png", bytes: 8192, inode: 3),
            item("Documents/Trip.mov", bytes: 1_000_000, inode: 4),
            item("Documents/Other.mov", bytes: 500_000, inode: 5),
            item("Documents/a.pdf", bytes: 8192, inode: 6),
        ]
        return CleanPicker(page: ManualCleanPlanner.page(items), format: .decimal, nowNanoseconds: Self.now)
    }

    @Test("rows: categories, cache businesses, and your files by kind and one by one")
    func rows() {
        let rows = picker.rows
        #expect(rows.first == .category(.leftovers))
        #expect(rows.count == 1 + 3 + (1 + 2) + (1 + 1))
        #expect(!rows.contains(.category(.userFiles)))
    }

    @Test("space marks a row's files and moves on; the marks become the fewest words; enter confirms with a summary")
    func markAndConfirm() {
        var picker = picker
        #expect(picker.handle(.character(" "), visibleRows: 20) == .pending)  // leftovers
        #expect(picker.handle(.down, visibleRows: 20) == .pending)  // skip caches, to feed
        #expect(picker.handle(.character(" "), visibleRows: 20) == .pending)  // feed
        // Down to the first video file (row 4: your video files, the largest kind; 5: Trip.mov).
        for _ in 0..<2 { _ = picker.handle(.down, visibleRows: 20) }
        #expect(picker.cursor.selected == 5)
        _ = picker.handle(.character(" "), visibleRows: 20)
        let selection = picker.selection
        #expect(selection.categories == [.leftovers])
        #expect(selection.cacheGroups == [Array("Library/Caches/com.example.feed".utf8)])
        #expect(selection.paths == [Array("Documents/Trip.mov".utf8)] && selection.kinds.isEmpty)
        #expect(picker.markedItems.count == 3)

        #expect(picker.handle(.enter, visibleRows: 20) == .pending && picker.confirming)
        #expect(picker.confirmation.question == "Delete 3 file(s), freeing 1.0 MB?")
        let screen = picker.lines(rows: 24, columns: 80, width: .builtIn, root: "/r").map(\.text)
        #expect(screen.contains { $0.contains("Delete 3 file(s)") }, "\(screen)")
        #expect(picker.handle(.character("n"), visibleRows: 20) == .pending && !picker.confirming)
        _ = picker.handle(.enter, visibleRows: 20)
        _ = picker.draw(rows: 24, columns: 80, width: .builtIn, root: "/r")
        #expect(picker.handle(.character("y"), visibleRows: 20) == .confirmed(selection))
    }

    @Test(
        "in a window too small for the question (1x1, 5x2), or before it is drawn, y deletes nothing and the window says so",
        arguments: [(1, 1), (5, 2), (40, 3)])
    func blindKeysDeleteNothing(columns: Int, rows: Int) {
        var picker = picker
        // The keys of the report: space, down, space, enter, y, each after a drawing.
        for key in [TerminalKey.character(" "), .down, .character(" "), .enter, .character("y"), .character("Y")] {
            _ = picker.draw(rows: rows, columns: columns, width: .builtIn, root: "/r")
            #expect(picker.handle(key, visibleRows: max(1, rows - 3)) == .pending, "\(key) acted")
        }
        #expect(picker.confirming && !picker.questionShownWhole)
        let screen = picker.lines(rows: 3, columns: 40, width: .builtIn, root: "/r").map(\.text)
        #expect(screen.contains { $0.contains("window too small to show the question") }, "\(screen)")
        // Enlarged, but not yet drawn at the new size: still blind.
        #expect(picker.handle(.resize, visibleRows: 20) == .pending)
        #expect(picker.handle(.character("y"), visibleRows: 20) == .pending)
        _ = picker.draw(rows: 24, columns: 80, width: .builtIn, root: "/r")
        #expect(picker.questionShownWhole)
        // Shrunk again: the resize makes it blind until the next drawing.
        _ = picker.handle(.resize, visibleRows: 1)
        #expect(picker.handle(.character("y"), visibleRows: 1) == .pending)
        _ = picker.draw(rows: 24, columns: 80, width: .builtIn, root: "/r")
        let selection = picker.selection
        #expect(picker.handle(.character("y"), visibleRows: 20) == .confirmed(selection))
    }

    @Test("a whole kind marked is the kind; space again unmarks; q quits; enter with nothing marked does nothing")
    func kindsAndQuit() {
        var picker = picker
        picker.toggle(4)  // your video files
        #expect(picker.selection.kinds == [.video] && picker.selection.paths.isEmpty)
        picker.toggle(4)
        #expect(picker.marked.isEmpty)
        #expect(picker.handle(.enter, visibleRows: 20) == .pending && !picker.confirming)
        #expect(picker.handle(.character("q"), visibleRows: 20) == .quit)
        let screen = picker.lines(rows: 10, columns: 60, width: .builtIn, root: "/r").map(\.text)
        #expect(screen.count == 10 && screen.last?.hasPrefix("marked 0 file(s)") == true, "\(screen)")
        #expect(screen.allSatisfy { $0.count <= 60 })
    }
}
