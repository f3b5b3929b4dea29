import QuotaWatchCore
import QuotaWatchView
import Testing

/// Files are rows of the list beside the subdirectories, as in ncdu and gdu: drawn so they read
/// as files, sorted with the directories, followed by the cursor, never entered.
@Suite("the list shows files beside directories")
struct WatchFileRowTests {
    /// The root with Caches (190 MB), a 30 MB file, Preferences (1 MB) and an empty file.
    private func library(cachesSize: UInt64 = 190_000_000, packSize: UInt64 = 30_000_000) -> WatchFrame {
        var frame = WatchFrame(root: "/data/app", directory: [])
        frame.rootAllocated = 221_004_096
        frame.entries = [
            WatchFrame.Entry(
                name: Array("Caches".utf8), allocated: cachesSize, apparent: cachesSize, files: 40, dirs: 3),
            WatchFrame.Entry(
                name: Array("offline.pack".utf8), allocated: packSize, apparent: packSize, files: 1, dirs: 0,
                isDirectory: false),
            WatchFrame.Entry(
                name: Array("Preferences".utf8), allocated: 1_000_000, apparent: 900_000, files: 6, dirs: 0),
            WatchFrame.Entry(
                name: Array("empty".utf8), allocated: 0, apparent: 0, files: 1, dirs: 0, isDirectory: false),
        ]
        frame.quotas = [
            quotaRow(path: "offline.pack", used: 1, limit: 10, effectiveLimit: 10, state: .ok)
        ]
        return frame
    }

    @Test("a file is a row, largest first with the directories, without the '/' and the file count")
    func fileRows() {
        var model = WatchModel()
        model.receive(library(), listRows: 10)
        let rows = model.rows()
        #expect(rows.map(\.display) == ["Caches", "offline.pack", "Preferences", "empty"])
        #expect(rows.map(\.isDirectory) == [true, false, true, false])
        // The sizes of the rows add up to what the directory holds.
        #expect(rows.reduce(0) { $0 + $1.size } == 221_000_000)
        // A quota is a directory's; a file's row never shows one, even with a path that matches.
        #expect(rows[1].quota == nil)

        let layout = WatchLayout(rows: 24, columns: 80, width: .builtIn)
        let fileLine = layout.row(rows[1], selected: false, format: .decimal).text
        let directoryLine = layout.row(rows[0], selected: false, format: .decimal).text
        #expect(fileLine.hasPrefix("  offline.pack "), "\(fileLine)")
        #expect(!fileLine.contains("offline.pack/"))
        #expect(fileLine.contains("30.0 MB"))
        #expect(directoryLine.hasPrefix("  Caches/ "), "\(directoryLine)")
        // The FILES column: the directory's count, blank for the file.
        #expect(directoryLine.contains(" 40 "))
        #expect(!fileLine.contains(" 1 "), "\(fileLine)")

        let screen = layout.screen(model, now: 0).map(\.text)
        #expect(screen.contains { $0.hasPrefix("  offline.pack ") }, "\(screen.joined(separator: "\n"))")

        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.rows().map(\.display) == ["Caches", "Preferences", "empty", "offline.pack"])
    }

    @Test("Enter on a file opens nothing and says why; Enter on a directory still opens it")
    func enterOnAFile() {
        var model = WatchModel()
        model.receive(library(), listRows: 10)
        #expect(model.handle(.down, listRows: 10) == .none)
        #expect(model.handle(.enter, listRows: 10, now: 1_000) == .none)
        #expect(model.state.directory.isEmpty)
        #expect(model.notice == "offline.pack is a file; only directories open")
        #expect(model.handle(.right, listRows: 10, now: 1_000) == .none)
        #expect(model.state.directory.isEmpty)
        _ = model.handle(.up, listRows: 10)
        #expect(model.handle(.enter, listRows: 10) == .showDirectory(Array("Caches".utf8)))
    }

    @Test("the cursor stays on a file as the list re-sorts and sizes change")
    func cursorFollowsAFile() {
        var model = WatchModel()
        model.receive(library(), listRows: 10)
        _ = model.handle(.down, listRows: 10)
        #expect(model.rows()[model.state.cursor.selected].display == "offline.pack")
        // The file grows past Caches: it moves to the top, and the highlight with it.
        model.receive(library(packSize: 300_000_000), listRows: 10)
        #expect(model.rows()[model.state.cursor.selected].display == "offline.pack")
        #expect(model.state.cursor.selected == 0)
        // `s`: name order; still on the file.
        _ = model.handle(.character("s"), listRows: 10)
        #expect(model.rows()[model.state.cursor.selected].display == "offline.pack")
        #expect(model.state.cursor.selected == 3)
    }

    @Test("a directory with only files lists them; an empty one says so")
    func onlyFilesAndEmpty() {
        var model = WatchModel()
        var frame = WatchFrame(root: "/data/app", directory: [])
        frame.entries = [
            WatchFrame.Entry(
                name: Array("a.log".utf8), allocated: 5, apparent: 5, files: 1, dirs: 0, isDirectory: false)
        ]
        model.receive(frame, listRows: 10)
        let layout = WatchLayout(rows: 24, columns: 80, width: .builtIn)
        #expect(layout.screen(model, now: 0).map(\.text).contains { $0.hasPrefix("> a.log ") })
        frame.entries = []
        model.receive(frame, listRows: 10)
        #expect(layout.screen(model, now: 0).map(\.text).contains { $0.hasPrefix("  (empty directory)") })
    }
}
