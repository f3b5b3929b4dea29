import QuotaWatchCore
import QuotaWatchView
import Testing

/// `d`: the question about the selected row, and that only a `y` to a question drawn whole
/// deletes anything.
@Suite struct WatchDeleteKeyTests {
    /// `scratch/` shown, holding a directory `cache` (3 files) and a file `blob_1`.
    func scratchModel() -> WatchModel {
        var model = WatchModel()
        var shown = frame("scratch", [])
        shown.entries = [
            WatchFrame.Entry(name: Array("cache".utf8), allocated: 3_000_000, apparent: 1_000_000, files: 3, dirs: 0),
            WatchFrame.Entry(
                name: Array("blob_1".utf8), allocated: 2_000_000, apparent: 2_000_000, files: 1, dirs: 0,
                isDirectory: false),
        ]
        _ = model.handle(.character("s"), listRows: 10)  // by name: blob_1, then cache
        model.state.directory = Array("scratch".utf8)
        model.receive(shown, listRows: 10)
        return model
    }

    func screen(_ model: WatchModel, _ layout: WatchLayout = layout80) -> String {
        layout.screen(model, now: 0).map(\.text).joined(separator: "\n")
    }

    @Test func theQuestionShowsThePathTheSizeAndTheFileCount() {
        var model = scratchModel()
        _ = model.handle(.down, listRows: 10)
        #expect(model.handle(.character("d"), listRows: 10) == .none)
        let directory = screen(model)
        #expect(directory.contains("Delete this directory?"))
        #expect(directory.contains("./scratch/cache/"))
        #expect(directory.contains("directory, 3 file(s), 3.0 MB (allocated)"))
        #expect(directory.contains("y: yes"))

        _ = model.handle(.character("n"), listRows: 10)
        _ = model.handle(.up, listRows: 10)
        _ = model.handle(.character("d"), listRows: 10)
        let file = screen(model)
        #expect(file.contains("Delete this file?"))
        #expect(file.contains("./scratch/blob_1"))
        #expect(file.contains("file, 2.0 MB (allocated)"))
    }

    @Test func onlyYToAQuestionDrawnWholeDeletes() {
        var model = scratchModel()
        _ = model.handle(.character("d"), listRows: 10)
        // Not drawn yet: y is blind.
        #expect(model.handle(.character("y"), listRows: 10) == .none)
        model.state.noteDrawn(questionWhole: layout80.showsQuestionWhole(model))
        for key in [TerminalKey.character("x"), .character("d"), .enter, .down, .character(" ")] {
            #expect(model.handle(key, listRows: 10) == .none, "\(key) acted")
            #expect(model.state.dialog != .none, "\(key) closed the question")
        }
        #expect(model.handle(.character("n"), listRows: 10) == .none)
        #expect(model.state.dialog == .none)
        // Asked again and answered: the row it was asked about, whole.
        _ = model.handle(.character("d"), listRows: 10)
        model.state.noteDrawn(questionWhole: layout80.showsQuestionWhole(model))
        #expect(
            model.handle(.character("y"), listRows: 10)
                == .delete(
                    DeleteTarget(path: Array("scratch/blob_1".utf8), isDirectory: false, size: 2_000_000, files: 1)))
        #expect(model.state.dialog == .none)
    }

    @Test func aWindowTooSmallForTheQuestionSaysSoAndActsOnNothing() {
        var model = scratchModel()
        _ = model.handle(.character("d"), listRows: 10)
        for (columns, rows) in [(1, 1), (20, 5), (79, 23)] {
            let layout = WatchLayout(rows: rows, columns: columns, width: .builtIn)
            model.state.noteDrawn(questionWhole: layout.showsQuestionWhole(model))
            #expect(model.handle(.character("y"), listRows: 1) == .none, "y acted at \(columns)x\(rows)")
            #expect(model.state.dialog != .none)
        }
        let narrow = WatchLayout(rows: 24, columns: 40, width: .builtIn)
        // The view's own minimum says so below 80×24; the question's notice where it alone fails.
        #expect(screen(model, narrow).contains("window too small"))
        // Enlarged, and drawn at the new size: now y acts.
        model.state.noteDrawn(questionWhole: layout80.showsQuestionWhole(model))
        #expect(model.handle(.character("y"), listRows: 10) != .none)
    }

    @Test func aPathTooLongForTheQuestionAt80ColumnsActsOnNothingUntilWider() {
        var model = WatchModel()
        let long = String(repeating: "n", count: 90)
        model.receive(frame([(long, 4096)]), listRows: 10)
        _ = model.handle(.character("d"), listRows: 10)
        model.state.noteDrawn(questionWhole: layout80.showsQuestionWhole(model))
        #expect(screen(model).contains("window too small to show the question (80x24): nothing is done"))
        #expect(model.handle(.character("y"), listRows: 10) == .none)
        let wide = WatchLayout(rows: 50, columns: 200, width: .builtIn)
        model.state.noteDrawn(questionWhole: wide.showsQuestionWhole(model))
        #expect(screen(model, wide).contains("./\(long)/"))
        #expect(model.handle(.character("y"), listRows: 10) != .none)
    }

    @Test func dOnAnEmptyListAsksNothing() {
        var model = WatchModel()
        model.receive(frame([]), listRows: 10)
        #expect(model.handle(.character("d"), listRows: 10) == .none)
        #expect(model.state.dialog == .none)
    }

    @Test func theQuestionSaysWhenTheEngineWillRefuse() {
        for (deletes, says) in [
            (false, "Without --clean the engine deletes nothing"),
            (nil, "The daemon deletes only if it runs with --clean"),
        ] as [(Bool?, String)] {
            var model = scratchModel()
            model.deletes = deletes
            _ = model.handle(.character("d"), listRows: 10)
            #expect(screen(model).contains(says), "\(String(describing: deletes))")
        }
    }

    @Test func dInTheExpandedLogAsksNothing() {
        var model = scratchModel()
        _ = model.handle(.character("l"), listRows: 10)
        #expect(model.handle(.character("d"), listRows: 10) == .none)
        #expect(model.state.dialog == .none)
    }
}
