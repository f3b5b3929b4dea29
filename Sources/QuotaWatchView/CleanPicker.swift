import QuotaWatchCore
import QuotaWatchPolicy

/// The storage page on a terminal: a list by category, space marks, enter asks for
/// confirmation with a summary, `q` leaves without deleting. Pure: keys in, lines out, so it
/// is tested without a terminal; the CLI draws its lines with the terminal toolkit.
///
/// What can be marked: a whole category (not `user-files`), one cache business, one kind of
/// the user's files, one user file. Marking the user's files is selecting them by hand, the
/// only way besides `--kind` and `--path` that they are deleted.
package struct CleanPicker {
    package enum Row: Hashable, Sendable {
        case category(CleanCategory)
        case group(CleanCategory, CleanGroupKey)
        case file(CleanItem)
    }

    package enum Outcome: Hashable, Sendable {
        /// Keep going: draw again and read the next key.
        case pending
        /// `q`: leave, deleting nothing.
        case quit
        /// Confirmed: delete what this selection names.
        case confirmed(CleanSelection)
    }

    package let rows: [Row]
    /// The item paths each row stands for.
    private let rowItems: [[[UInt8]]]
    /// Each row's count and size, computed once: the files do not change while it shows.
    private let rowTotals: [CleanTotals]
    private let itemsByPath: [[UInt8]: CleanItem]
    private let page: [CleanCategorySummary]
    package private(set) var marked: Set<[UInt8]> = []
    package private(set) var cursor = ListCursor()
    /// The confirmation is asked.
    package private(set) var confirming = false
    /// The confirmation was drawn whole at the current size (``draw(rows:columns:width:root:)``):
    /// only then does `y` delete. A window too small for it, or a resize not yet drawn, leaves
    /// every key blind, and a blind key deletes nothing.
    package private(set) var questionShownWhole = false
    let format: ByteFormat
    let nowNanoseconds: Int64

    package init(page: [CleanCategorySummary], format: ByteFormat, nowNanoseconds: Int64) {
        self.page = page
        self.format = format
        self.nowNanoseconds = nowNanoseconds
        var rows: [Row] = []
        var rowItems: [[[UInt8]]] = []
        var itemsByPath: [[UInt8]: CleanItem] = [:]
        for summary in page where !summary.items.isEmpty {
            for item in summary.items { itemsByPath[item.path] = item }
            if summary.category != .userFiles {
                rows.append(.category(summary.category))
                rowItems.append(summary.items.map(\.path))
            }
            guard summary.category == .caches || summary.category == .userFiles else { continue }
            for group in summary.groups {
                rows.append(.group(summary.category, group.key))
                rowItems.append(group.items.map(\.path))
                guard summary.category == .userFiles else { continue }
                for item in group.items {
                    rows.append(.file(item))
                    rowItems.append([item.path])
                }
            }
        }
        self.rows = rows
        self.rowItems = rowItems
        self.itemsByPath = itemsByPath
        rowTotals = rowItems.map { paths in CleanTotals(paths.compactMap { itemsByPath[$0] }) }
    }

    /// The marked items, in listing order.
    package var markedItems: [CleanItem] {
        ManualCleanPlanner.sortedForListing(marked.compactMap { itemsByPath[$0] })
    }

    /// What the marks name, as few words as possible: whole categories, businesses and kinds
    /// where every file of them is marked, the other files by path.
    package var selection: CleanSelection {
        var selection = CleanSelection()
        var covered: Set<[UInt8]> = []
        for (index, row) in rows.enumerated() {
            let paths = rowItems[index]
            guard !paths.isEmpty, paths.allSatisfy(marked.contains), !paths.allSatisfy(covered.contains) else {
                continue
            }
            switch row {
            case .category(let category): selection.categories.insert(category)
            case .group(.caches, let key): selection.cacheGroups.insert(key.group)
            case .group(_, let key): if let kind = key.kind { selection.kinds.insert(kind) } else { continue }
            case .file(let item): selection.paths.append(item.path)
            }
            covered.formUnion(paths)
        }
        return selection
    }

    // MARK: Keys

    package mutating func handle(_ key: TerminalKey, visibleRows: Int) -> Outcome {
        if confirming {
            if key == .resize { questionShownWhole = false }
            switch confirmation.answer(to: key, shownWhole: questionShownWhole) {
            case .confirmed?: return .confirmed(selection)
            case .cancelled?:
                confirming = false
                questionShownWhole = false
            case nil: break
            }
            return .pending
        }
        if cursor.handle(key, count: rows.count, visibleRows: visibleRows) { return .pending }
        switch key {
        case .character(" "):
            toggle(cursor.selected)
            cursor.select(cursor.selected + 1, count: rows.count, visibleRows: visibleRows)
        case .enter:
            if !marked.isEmpty {
                confirming = true
                questionShownWhole = false
            }
        case .character("q"), .character("Q"), .escape:
            return .quit
        case .resize:
            cursor.clamp(count: rows.count, visibleRows: visibleRows)
        default:
            break
        }
        return .pending
    }

    /// Marks every file of the row, or unmarks them all when all are marked already.
    package mutating func toggle(_ row: Int) {
        guard rowItems.indices.contains(row) else { return }
        let paths = rowItems[row]
        if paths.allSatisfy(marked.contains) {
            marked.subtract(paths)
        } else {
            marked.formUnion(paths)
        }
    }

    // MARK: Drawing

    /// ``lines(rows:columns:width:root:)``, recording whether the confirmation, if asked, shows
    /// whole on them: what the screen loop draws before it reads a key.
    package mutating func draw(rows: Int, columns: Int, width: DisplayWidth, root: String) -> [StyledLine] {
        questionShownWhole = confirming && confirmation.fits(rows: rows, columns: columns, width: width)
        return lines(rows: rows, columns: columns, width: width, root: root)
    }

    /// The screen: a title, the rows that fit, a status line; the confirmation over them.
    package func lines(rows screenRows: Int, columns: Int, width: DisplayWidth, root: String) -> [StyledLine] {
        let visible = max(1, screenRows - 3)
        var lines = [StyledLine(width.truncated("Storage of \(root)", to: columns), .bold)]
        lines.append(StyledLine("  FILES       SIZE", .dim))
        var cursor = self.cursor
        cursor.clamp(count: rows.count, visibleRows: visible)
        for index in cursor.visibleRange(count: rows.count, visibleRows: visible) {
            var line = StyledLine(text(of: index, width: width, columns: columns))
            if index == cursor.selected { line = StyledLine(width.padded(line.text, to: columns), .reverse) }
            lines.append(line)
        }
        while lines.count < screenRows - 1 { lines.append(.blank) }
        let totals = CleanTotals(marked.compactMap { itemsByPath[$0] })
        lines.append(
            StyledLine(
                width.truncated(
                    "marked \(totals.count) file(s), \(format.string(totals.allocatedBytes))   "
                        + "space: mark   enter: delete marked   q: quit", to: columns), .reverse))
        guard confirming else { return lines }
        let confirmation = confirmation
        guard confirmation.fits(rows: screenRows, columns: columns, width: width) else {
            return confirmation.tooSmallNotice(rows: screenRows, columns: columns, width: width)
        }
        return confirmation.overlay.drawn(over: lines, rows: screenRows, columns: columns, width: width)
    }

    /// The question enter asks: how many files, how much, from which categories.
    package var confirmation: ConfirmDialog {
        let items = markedItems
        let totals = CleanTotals(items)
        var detail: [String] = []
        for category in CleanCategory.allCases {
            let inCategory = items.filter { $0.category == category }
            guard !inCategory.isEmpty else { continue }
            let categoryTotals = CleanTotals(inCategory)
            detail.append(
                "\(category.rawValue): \(categoryTotals.count) file(s), \(format.string(categoryTotals.allocatedBytes))"
            )
        }
        return ConfirmDialog(
            question: "Delete \(totals.count) file(s), freeing \(format.string(totals.allocatedBytes))?",
            detail: detail)
    }

    private func text(of index: Int, width: DisplayWidth, columns: Int) -> String {
        let paths = rowItems[index]
        let markedCount = paths.filter(marked.contains).count
        let box = markedCount == 0 ? "[ ]" : markedCount == paths.count ? "[x]" : "[-]"
        let totals = rowTotals[index]
        let numbers =
            width.padded("\(totals.count)", to: 5, alignRight: true) + "  "
            + width.padded(format.string(totals.allocatedBytes), to: 9, alignRight: true)
        let label: String
        switch rows[index] {
        case .category(let category): label = "\(category.rawValue) — \(category.title)"
        case .group(.userFiles, let key): label = "your \(HumanText.name(key.name)) files"
        case .group(_, let key): label = "  " + HumanText.name(key.name)
        case .file(let item):
            let age = item.ageSeconds(nowNanoseconds: nowNanoseconds)
            label = "    " + Self.age(age) + " old  " + HumanText.name(item.path)
        }
        return width.truncated("\(box) \(numbers)  \(width.printable(label))", to: columns)
    }

    static func age(_ seconds: Int64) -> String {
        if seconds >= 86_400 { return "\(seconds / 86_400)d" }
        if seconds >= 3600 { return "\(seconds / 3600)h" }
        if seconds >= 60 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
