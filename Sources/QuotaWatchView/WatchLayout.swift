import QuotaWatchCore

/// Draws a ``WatchModel`` into screen lines: pure, so every part of the screen is tested
/// without a terminal.
///
///     row 0      title bar: ROOT, its allocated (apparent) total
///     row 1      level, free space, events/s, quota states, degraded / resyncing / paused
///     row 2      the current directory, sort order, size kind (or the first crawl's progress)
///     row 3      column headings
///     rows 4…    the directories, then the cleanup candidates, then the event log
///     last row   the keys
package struct WatchLayout: Sendable {
    package static let minimumRows = 24
    package static let minimumColumns = 80

    package var rows: Int
    package var columns: Int
    package var width: DisplayWidth

    package init(rows: Int, columns: Int, width: DisplayWidth) {
        self.rows = rows
        self.columns = columns
        self.width = width
    }

    package var isTooSmall: Bool { rows < Self.minimumRows || columns < Self.minimumColumns }

    /// How the rows below the headings are shared.
    package struct Areas: Equatable, Sendable {
        package var list: Int
        package var candidates: Int
        package var log: Int
    }

    /// The rows below the headings shared out: by default about a quarter for the log and up to
    /// a sixth for the candidates; then the rows one part cannot fill (a short list, a short
    /// log) go to the others that have more to show, so no row stays blank while a part is cut.
    package func areas(list listCount: Int, candidates candidateCount: Int, log logCount: Int) -> Areas {
        let remaining = max(0, rows - 5)
        let candidatesWanted = candidateCount == 0 ? 0 : candidateCount + 1
        let logWanted = logCount + 1
        var log = max(4, remaining / 4)
        var candidates = min(candidatesWanted, max(2, remaining / 6))
        var list = max(1, remaining - log - candidates)
        // A short list leaves rows to the candidates, then the log.
        let listWanted = max(1, listCount)
        if list > listWanted {
            var spare = list - listWanted
            list = listWanted
            let more = min(spare, candidatesWanted - candidates)
            candidates += more
            spare -= more
            log += spare
        }
        // A short log leaves rows to the candidates, then the list.
        if log > max(2, logWanted) {
            var spare = log - max(2, logWanted)
            log -= spare
            let more = min(spare, candidatesWanted - candidates)
            candidates += more
            spare -= more
            list += spare
        }
        return Areas(list: list, candidates: candidates, log: log)
    }

    package func areas(_ model: WatchModel) -> Areas {
        areas(
            list: model.rows().count + (Self.omitted(model) > 0 ? 1 : 0), candidates: model.shownCandidates.count,
            log: Self.folded(model.shownLog, format: model.format).count)
    }

    /// The rows the directory list has on this screen for its entries (a list that is cut
    /// keeps its last row to say so).
    package func listRows(_ model: WatchModel) -> Int {
        max(1, areas(model).list - (Self.omitted(model) > 0 ? 1 : 0))
    }

    /// Names of the directory shown that the frame left out.
    static func omitted(_ model: WatchModel) -> Int { model.frame?.omittedEntries ?? 0 }

    /// Column widths of the directory list, set by the window and by whether the level shown
    /// has a quota to show, never by the lengths of its names: moving between levels does not
    /// shift the columns. The name takes what the other columns leave, up to a width that keeps
    /// the sizes beside their names on a wide screen; a level without a quota row leaves out
    /// the QUOTA and USE columns and gives their room to the name.
    package struct Columns: Equatable, Sendable {
        package static let size = 9
        package static let files = 8
        package static let growth = 11
        package static let quota = 9
        package static let bar = 12
        package static let percent = 5
        /// The name column's width when the screen has room for more (all an 80-column screen
        /// has without the quota columns), or a quarter of a wider screen.
        package static let comfortableName = 47
        package var name: Int
        package var showsQuotas: Bool

        package init(totalColumns: Int, showsQuotas: Bool = true) {
            self.showsQuotas = showsQuotas
            let sizes = Self.size + Self.files + Self.growth + 3
            let quotas = showsQuotas ? Self.quota + Self.bar + Self.percent + 3 : 0
            let available = totalColumns - 2 - sizes - quotas
            name = max(8, min(available, max(Self.comfortableName, totalColumns / 4)))
        }
    }

    /// The columns for the level shown now.
    func columns(_ model: WatchModel) -> Columns {
        Columns(totalColumns: columns, showsQuotas: model.rows().contains { $0.quota != nil })
    }

    // MARK: The screen

    package func screen(_ model: WatchModel, now milliseconds: Int64) -> [StyledLine] {
        if isTooSmall { return tooSmall() }
        let now = model.shownTime(milliseconds)
        var lines: [StyledLine] = []
        lines.append(titleBar(model))
        lines.append(statusLine(model))
        lines.append(locationLine(model))
        if model.state.logExpanded {
            lines += fullLog(model, rows: rows - 4)
        } else {
            let names = columns(model)
            lines.append(headings(names))
            let areas = areas(model)
            lines += list(model, rows: areas.list, columns: names)
            lines += candidates(model, rows: areas.candidates, now: now)
            lines += log(model, rows: areas.log)
        }
        lines.append(footer(model))
        var screen = lines.map { $0.clipped(to: columns, width: width) }
        switch model.state.dialog {
        case .none: break
        case .help: screen = Self.help.drawn(over: screen, rows: rows, columns: columns, width: width)
        case .confirmClean, .confirmDelete:
            guard let question = Self.question(model) else { break }
            guard question.fits(rows: rows, columns: columns, width: width) else {
                return question.tooSmallNotice(rows: rows, columns: columns, width: width)
            }
            screen = question.overlay.drawn(over: screen, rows: rows, columns: columns, width: width)
        }
        return screen
    }

    /// Whether ``screen(_:now:)`` shows the question asked now whole: what the screen loop
    /// records (``WatchState/noteDrawn(questionWhole:)``) so that `y` acts only on a question seen.
    package func showsQuestionWhole(_ model: WatchModel) -> Bool {
        guard !isTooSmall, let question = Self.question(model) else { return false }
        return question.fits(rows: rows, columns: columns, width: width)
    }

    /// The question the dialog asks now (`c`'s or `d`'s), if any.
    static func question(_ model: WatchModel) -> ConfirmDialog? {
        switch model.state.dialog {
        case .confirmClean: confirmation(model)
        case .confirmDelete(let target): deleteConfirmation(target, model)
        case .none, .help: nil
        }
    }

    /// Below 80×24 the view says so instead of drawing a broken layout.
    package func tooSmall() -> [StyledLine] {
        var lines = Array(repeating: StyledLine.blank, count: max(1, rows))
        let message = [
            "window too small: \(columns)x\(rows)",
            "quotawatch watch needs at least \(Self.minimumColumns)x\(Self.minimumRows)",
            "enlarge it, or press q to quit",
        ]
        let top = max(0, (rows - message.count) / 2)
        for (offset, text) in message.enumerated() where top + offset < rows {
            let cut = width.truncated(text, to: columns)
            let left = max(0, (columns - width.columns(cut)) / 2)
            lines[top + offset] = StyledLine(String(repeating: " ", count: left) + cut, offset == 0 ? .bold : .plain)
        }
        return lines
    }

    // MARK: Parts

    static let barStyle = TextStyle(bold: true, reverse: true)
    /// The columns of an attached socket's path the status line keeps, its end, before it
    /// drops other parts for it.
    static let attachedMinimum = 24

    func titleBar(_ model: WatchModel) -> StyledLine {
        let frame = model.frame
        let totals =
            frame.map { frame in
                "\(model.format.string(frame.rootAllocated)) allocated (\(model.format.string(frame.rootApparent)) apparent)  "
            } ?? ""
        let left = " QuotaWatch  "
        let room = columns - width.columns(left) - width.columns(totals)
        let root = width.truncatedFront(width.printable(frame?.root ?? ""), to: max(0, room - 1))
        let gap = max(1, columns - width.columns(left) - width.columns(root) - width.columns(totals))
        return StyledLine(left + root + String(repeating: " ", count: gap) + totals, Self.barStyle)
    }

    /// The engine's state in parts, the least needed dropped whole when the screen is too
    /// narrow for all: nothing is cut mid-word.
    func statusLine(_ model: WatchModel) -> StyledLine {
        guard let frame = model.frame else { return StyledLine(" starting…", .dim) }
        // (spans, priority): the lowest priority goes first.
        var parts: [(spans: [StyledSpan], priority: Int)] = []
        if model.state.paused { parts.append(([StyledSpan(" "), StyledSpan("PAUSED", .reverse), StyledSpan(" ")], 9)) }
        if let level = frame.level {
            parts.append(([StyledSpan(" level "), StyledSpan(level.rawValue, Self.levelStyle(level))], 8))
            if let free = frame.free, let total = frame.diskTotal {
                parts.append(([StyledSpan(", \(model.format.string(free)) free")], 6))
                parts.append(([StyledSpan(" of \(model.format.string(total))")], 1))
            }
        } else {
            parts.append(([StyledSpan(" level ?", .dim)], 8))
        }
        if let phone = frame.phone {
            // Always in the phone's units, whatever the table uses.
            parts.append(([StyledSpan("  \(phone.version): \(ByteFormat.decimal.string(phone.total))", .bold)], 5))
        }
        if let rate = model.shownGrowth.eventsPerSecond {
            parts.append(([StyledSpan("  \(Saturating.int64(rate.rounded())) ev/s")], 2))
        }
        if !frame.quotas.isEmpty {
            let states = Dictionary(grouping: frame.quotas, by: \.state).mapValues(\.count)
            var spans = [StyledSpan("  quotas:")]
            for state in QuotaState.allCases {
                if let count = states[state] {
                    spans.append(StyledSpan(" \(count) \(state.rawValue)", Self.quotaStyle(state)))
                }
            }
            parts.append((spans, 7))
        }
        if frame.unreadable > 0 {
            parts.append(([StyledSpan("  INCOMPLETE (\(frame.unreadable) unreadable)", Self.quotaStyle("warning"))], 4))
        }
        if frame.degraded > 0 {
            parts.append(([StyledSpan("  DEGRADED (\(frame.degraded) polled)", Self.quotaStyle("warning"))], 4))
        }
        if frame.isResyncing { parts.append(([StyledSpan("  RESYNCING", Self.quotaStyle("warning"))], 4)) }
        func columnsUsed(_ parts: [(spans: [StyledSpan], priority: Int)]) -> Int {
            parts.reduce(0) { $0 + $1.spans.reduce(0) { $0 + width.columns($1.text) } }
        }
        // Attached, the socket keeps a place (its end says most): other parts go first, since
        // which daemon is shown matters more than the free space or the event rate.
        let label = "  attached: "
        let socket = model.attachedTo.map { width.printable($0) }
        let socketRoom = socket.map { width.columns(label) + min(width.columns($0), Self.attachedMinimum) } ?? 0
        while columnsUsed(parts) + socketRoom > columns,
            let least = parts.indices.min(by: { parts[$0].priority < parts[$1].priority })
        {
            parts.remove(at: least)
        }
        var line = StyledLine(parts.flatMap(\.spans))
        let room = columns - columnsUsed(parts) - width.columns(label)
        if let socket, room > 0 {
            line.append(label + width.truncatedFront(socket, to: room), .dim)
        }
        return line
    }

    /// The breadcrumb: the directory shown, the sort and the size kind (or the first crawl's
    /// progress). A notice never takes its place (it goes in the footer).
    func locationLine(_ model: WatchModel) -> StyledLine {
        if let crawl = model.frame?.crawl {
            return StyledLine(
                " first crawl: \(crawl.directories) directories, \(crawl.files) files so far…", .bold)
        }
        let path = "./" + width.printable(EscapedName.string(model.state.directory))
        let right =
            "sort: \(model.state.sort.rawValue)  sizes: \(model.state.showsApparent ? "apparent" : "allocated") "
        let gone = model.frame?.directoryExists == false ? "  (gone)" : ""
        let shown = width.truncatedFront(path, to: max(1, columns - width.columns(right) - width.columns(gone) - 3))
        let gap = max(1, columns - 1 - width.columns(shown) - width.columns(gone) - width.columns(right))
        var line = StyledLine(" " + shown, .bold)
        if !gone.isEmpty { line.append(gone, Self.quotaStyle("breach")) }
        line.append(String(repeating: " ", count: gap) + right, .dim)
        return line
    }

    /// The keys, as many as fit (never a key without its word); a notice in their place for a
    /// few seconds.
    func footer(_ model: WatchModel) -> StyledLine {
        if let notice = model.notice {
            return StyledLine(" " + width.truncated(width.printable(notice), to: columns - 2) + " ", Self.barStyle)
        }
        let text =
            Self.keyHints(paused: model.state.paused, logExpanded: model.state.logExpanded)
            .first { width.columns($0) + 1 <= columns } ?? " ? help  q quit"
        return StyledLine(" " + text, .reverse)
    }

    // MARK: Colours

    package static func quotaStyle(_ state: String) -> TextStyle {
        switch state {
        case "ok": TextStyle(foreground: .green)
        case "warning": TextStyle(foreground: .yellow, bold: true)
        case "breach": TextStyle(foreground: .red, bold: true)
        default: .plain
        }
    }

    package static func quotaStyle(_ state: QuotaState) -> TextStyle { quotaStyle(state.rawValue) }

    static func levelStyle(_ level: DiskLevel) -> TextStyle {
        switch level {
        case .normal: quotaStyle(.ok)
        case .warning: quotaStyle(.warning)
        case .critical: quotaStyle(.breach)
        }
    }

    static func severityStyle(_ severity: EventLine.Severity) -> TextStyle {
        switch severity {
        case .info: .plain
        case .good: quotaStyle("ok")
        case .warning: quotaStyle("warning")
        case .bad: quotaStyle("breach")
        }
    }
}
