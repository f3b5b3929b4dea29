import QuotaWatchCore

/// The order of the directory list; `s` cycles through them.
package enum SortOrder: String, Sendable, CaseIterable {
    case size, name, growth

    package var next: SortOrder {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

/// What the app must do after a key.
package enum WatchCommand: Sendable, Equatable {
    case none
    /// Ask the engine for the rows of this directory (raw, relative to the root) from now on.
    case showDirectory([UInt8])
    /// Run every cleaner now (confirmed).
    case cleanNow
    /// Delete this file or directory, whole (confirmed).
    case delete(DeleteTarget)
    case quit
}

/// What `d` asks to delete: the selected row as the list showed it when `d` was pressed.
package struct DeleteTarget: Sendable, Equatable {
    /// Raw bytes relative to the root.
    package var path: [UInt8]
    package var isDirectory: Bool
    /// As the list showed it (allocated or apparent).
    package var size: UInt64
    package var files: UInt64

    package init(path: [UInt8], isDirectory: Bool, size: UInt64, files: UInt64) {
        self.path = path
        self.isDirectory = isDirectory
        self.size = size
        self.files = files
    }
}

/// Where the user is and what they asked for: the key → state machine, pure.
package struct WatchState: Sendable, Equatable {
    package enum Dialog: Sendable, Equatable {
        case none, help, confirmClean
        /// `d`'s question, about this row.
        case confirmDelete(DeleteTarget)

        /// A yes/no question is asked: `y` acts only once it was drawn whole.
        package var asksQuestion: Bool {
            switch self {
            case .confirmClean, .confirmDelete: true
            case .none, .help: false
            }
        }
    }

    /// The directory shown, raw bytes relative to the root; empty for the root.
    package var directory: [UInt8] = []
    package var cursor = ListCursor()
    package var sort = SortOrder.size
    package var showsApparent = false
    package var paused = false
    /// `l`: the event log takes the screen below the header, each line wrapped in full.
    package var logExpanded = false
    /// In the expanded log: lines scrolled back from the newest (0 shows the newest). The
    /// screen loop keeps it within the log (``WatchLayout/maximumLogOffset(_:)``).
    package var logOffset = 0
    package var dialog = Dialog.none
    /// The question asked (`c`'s or `d`'s) was drawn whole at the current size (``noteDrawn(questionWhole:)``):
    /// only then does `y` act. A key pressed while the question could not be read does nothing.
    package private(set) var questionShownWhole = false
    /// The child selected in each directory left by `enter`, and the row then at the top, so
    /// backspace comes back to the list as it was.
    private var selectedBeforeEntering: [[UInt8]: Left] = [:]

    private struct Left: Sendable, Equatable {
        var name: [UInt8]
        var firstVisible: Int
    }

    package init() {}

    /// One row of the list as keys see it: Enter opens a directory, never a file.
    package struct Item: Sendable, Equatable {
        package var name: [UInt8]
        package var isDirectory: Bool
        /// What `d`'s question says of it: its size as shown, its files.
        package var size: UInt64
        package var files: UInt64

        package init(name: [UInt8], isDirectory: Bool = true, size: UInt64 = 0, files: UInt64 = 0) {
            self.name = name
            self.isDirectory = isDirectory
            self.size = size
            self.files = files
        }
    }

    /// Applies `key`. `rows` are the list's rows as shown (sorted), `visibleRows` how many
    /// the screen has for them; `cleanAllowed` is false when no cleanup can be asked for.
    package mutating func handle(
        _ key: TerminalKey, rows: [Item], visibleRows: Int, cleanAllowed: Bool = true
    ) -> WatchCommand {
        switch dialog {
        case .help:
            dialog = .none
            return key == .character("q") ? .quit : .none
        case .confirmClean:
            return answer(key, confirmed: .cleanNow)
        case .confirmDelete(let target):
            return answer(key, confirmed: .delete(target))
        case .none:
            break
        }
        if logExpanded, scrollLog(key, page: max(1, visibleRows)) { return .none }
        if cursor.handle(key, count: rows.count, visibleRows: visibleRows) { return .none }
        switch key {
        case .enter, .right:
            // A file is listed to be seen, not entered.
            guard rows.indices.contains(cursor.selected), rows[cursor.selected].isDirectory else { return .none }
            let name = rows[cursor.selected].name
            selectedBeforeEntering[directory] = Left(name: name, firstVisible: cursor.firstVisible)
            directory = directory.isEmpty ? name : directory + [UInt8(ascii: "/")] + name
            cursor = ListCursor()
            return .showDirectory(directory)
        case .backspace, .left:
            guard !directory.isEmpty else { return .none }
            return showParent()
        case .character("s"):
            sort = sort.next
        case .character("a"):
            showsApparent.toggle()
        case .character("p"):
            paused.toggle()
        case .character("l"):
            logExpanded.toggle()
            logOffset = 0
        case .escape:
            logExpanded = false
        case .character("?"), .character("h"):
            dialog = .help
        case .character("c"):
            if cleanAllowed {
                dialog = .confirmClean
                questionShownWhole = false
            }
        case .character("d"):
            // Asks first, about the row as shown now; the answer acts only on what it showed.
            // The expanded log hides the list: nothing there is selected to be seen.
            guard !logExpanded, rows.indices.contains(cursor.selected) else { return .none }
            let row = rows[cursor.selected]
            dialog = .confirmDelete(
                DeleteTarget(
                    path: directory.isEmpty ? row.name : directory + [UInt8(ascii: "/")] + row.name,
                    isDirectory: row.isDirectory, size: row.size, files: row.isDirectory ? row.files : 1))
            questionShownWhole = false
        case .character("q"), .character("Q"):
            return .quit
        default:
            break
        }
        return .none
    }

    /// A key while a question is asked: `y` gives `confirmed` only when the question was drawn
    /// whole at the current size; `n`, `q` and escape close it; any other key keeps it.
    private mutating func answer(_ key: TerminalKey, confirmed: WatchCommand) -> WatchCommand {
        if key == .resize { questionShownWhole = false }
        switch ConfirmDialog(question: "").answer(to: key, shownWhole: questionShownWhole) {
        case .confirmed?:
            dialog = .none
            questionShownWhole = false
            return confirmed
        case .cancelled?:
            dialog = .none
            questionShownWhole = false
        case nil:
            break
        }
        return .none
    }

    /// Goes up one level (the root stays the root), as Backspace does.
    package mutating func showParent() -> WatchCommand {
        if let slash = directory.lastIndex(of: UInt8(ascii: "/")) {
            directory = Array(directory[..<slash])
        } else {
            directory = []
        }
        cursor = ListCursor()
        return .showDirectory(directory)
    }

    /// PgUp, PgDn, Home, End and the arrows scroll the expanded log; false for other keys.
    private mutating func scrollLog(_ key: TerminalKey, page: Int) -> Bool {
        switch key {
        case .pageUp: logOffset = logOffset > Int.max - page ? Int.max : logOffset + page
        case .pageDown: logOffset = max(0, logOffset - page)
        case .up: logOffset = logOffset == Int.max ? logOffset : logOffset + 1
        case .down: logOffset = max(0, logOffset - 1)
        case .home: logOffset = Int.max  // the oldest: the loop brings it back within the log
        case .end: logOffset = 0
        default: return false
        }
        return true
    }

    /// What the screen loop drew last: whether the question asked, if any, showed whole
    /// (``WatchLayout/showsQuestionWhole(_:)``); false after a resize until the next drawing.
    package mutating func noteDrawn(questionWhole: Bool) {
        questionShownWhole = dialog.asksQuestion && questionWhole
    }

    /// Once the rows of a directory just entered or left arrive: selects the child we came
    /// back from, if any.
    package mutating func restoreSelection(rows: [Item], visibleRows: Int) {
        guard let left = selectedBeforeEntering.removeValue(forKey: directory),
            let index = rows.firstIndex(where: { $0.name == left.name && $0.isDirectory })
        else { return }
        cursor.select(index, firstVisible: left.firstVisible, count: rows.count, visibleRows: visibleRows)
    }
}
