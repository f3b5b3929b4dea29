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
public struct WatchLayout: Sendable {
    public static let minimumRows = 24
    public static let minimumColumns = 80

    public var rows: Int
    public var columns: Int
    public var width: DisplayWidth

    public init(rows: Int, columns: Int, width: DisplayWidth) {
        self.rows = rows
        self.columns = columns
        self.width = width
    }

    public var isTooSmall: Bool { rows < Self.minimumRows || columns < Self.minimumColumns }

    /// How the rows below the headings are shared.
    public struct Areas: Equatable, Sendable {
        public var list: Int
        public var candidates: Int
        public var log: Int
    }

    public func areas(candidateCount: Int) -> Areas {
        let remaining = max(0, rows - 5)
        let log = max(4, remaining / 4)
        let candidates = candidateCount == 0 ? 0 : min(candidateCount + 1, max(2, remaining / 6))
        return Areas(list: max(1, remaining - log - candidates), candidates: candidates, log: log)
    }

    /// The rows the directory list has on this screen.
    public func listRows(_ model: WatchModel) -> Int { areas(candidateCount: model.candidates.count).list }

    /// Column widths of the directory list: the name takes what the others leave.
    public struct Columns: Equatable, Sendable {
        public static let size = 9
        public static let files = 8
        public static let growth = 11
        public static let quota = 9
        public static let bar = 12
        public static let percent = 5
        public var name: Int

        public init(totalColumns: Int) {
            name = max(
                8, totalColumns - 2 - (Self.size + Self.files + Self.growth + Self.quota + Self.bar + Self.percent) - 6)
        }
    }

    // MARK: The screen

    public func screen(_ model: WatchModel, now milliseconds: Int64) -> [StyledLine] {
        if isTooSmall { return tooSmall() }
        var lines: [StyledLine] = []
        lines.append(titleBar(model))
        lines.append(statusLine(model))
        lines.append(locationLine(model))
        lines.append(headings())
        let areas = areas(candidateCount: model.candidates.count)
        lines += list(model, rows: areas.list)
        lines += candidates(model, rows: areas.candidates, now: milliseconds)
        lines += log(model, rows: areas.log)
        lines.append(footer())
        var screen = lines.map { $0.clipped(to: columns, width: width) }
        switch model.state.dialog {
        case .none: break
        case .help: screen = Self.help.drawn(over: screen, rows: rows, columns: columns, width: width)
        case .confirmClean:
            let dialog = ConfirmDialog(
                question: "Run every cleaner now?",
                detail: [
                    model.attachedTo == nil
                        ? "Each cleaner removes what its rules select, as a manual trigger."
                        : "The daemon runs them, as 'quotawatch clean-now' would.",
                    "Without --clean the run is a dry run and removes nothing.",
                ])
            screen = dialog.overlay.drawn(over: screen, rows: rows, columns: columns, width: width)
        }
        return screen
    }

    /// Below 80×24 the view says so instead of drawing a broken layout.
    public func tooSmall() -> [StyledLine] {
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

    public static let help = Overlay.help(
        title: "quotawatch watch: keys",
        keys: [
            ("up/down, pgup/pgdn", "move in the list (home/end: first/last)"),
            ("enter, right", "open the selected directory"),
            ("backspace, left", "back to the parent directory"),
            ("s", "sort by size, name or growth (cycles)"),
            ("a", "show allocated or apparent sizes"),
            ("c", "run every cleaner now (asks first)"),
            ("p", "pause the display (the engine keeps counting)"),
            ("?", "this help"),
            ("q", "quit (Ctrl-C too)"),
        ],
        footer: "any key closes")

    // MARK: Parts

    static let barStyle = TextStyle(bold: true, reverse: true)

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

    func statusLine(_ model: WatchModel) -> StyledLine {
        var line = StyledLine()
        guard let frame = model.frame else {
            line.append(" starting…", .dim)
            return line
        }
        if let level = frame.level {
            line.append(" level ")
            line.append(level, Self.levelStyle(level))
            if let free = frame.free, let total = frame.diskTotal {
                line.append(", \(model.format.string(free)) free of \(model.format.string(total))")
            }
        } else {
            line.append(" level ?", .dim)
        }
        if let phone = frame.phone {
            // Always in the phone's units, whatever the table uses.
            line.append("  \(phone.version): \(ByteFormat.decimal.string(phone.total))", .bold)
        }
        if let rate = model.growth.eventsPerSecond {
            line.append("  \(Int(rate.rounded())) ev/s")
        }
        if !frame.quotas.isEmpty {
            let states = Dictionary(grouping: frame.quotas, by: \.state).mapValues(\.count)
            line.append("  quotas:")
            for state in ["ok", "warning", "breach"] {
                if let count = states[state] { line.append(" \(count) \(state)", Self.quotaStyle(state)) }
            }
        }
        if frame.degraded > 0 { line.append("  DEGRADED (\(frame.degraded) polled)", Self.quotaStyle("warning")) }
        if frame.isResyncing { line.append("  RESYNCING", Self.quotaStyle("warning")) }
        if model.state.paused { line.append("  PAUSED", .reverse) }
        if let socket = model.attachedTo { line.append("  attached: \(width.printable(socket))", .dim) }
        return line
    }

    func locationLine(_ model: WatchModel) -> StyledLine {
        if let crawl = model.frame?.crawl {
            return StyledLine(
                " first crawl: \(crawl.directories) directories, \(crawl.files) files so far…", .bold)
        }
        if let notice = model.notice { return StyledLine(" " + width.printable(notice), Self.quotaStyle("warning")) }
        let path = "./" + width.printable(EscapedName.string(model.state.directory))
        let right =
            "sort: \(model.state.sort.rawValue)  sizes: \(model.state.showsApparent ? "apparent" : "allocated") "
        let shown = width.truncatedFront(path, to: max(1, columns - width.columns(right) - 3))
        let gap = max(1, columns - 1 - width.columns(shown) - width.columns(right))
        var line = StyledLine(" " + shown, .bold)
        if model.frame?.directoryExists == false { line.append("  (gone)", Self.quotaStyle("breach")) }
        line.append(String(repeating: " ", count: gap) + right, .dim)
        return line
    }

    func headings() -> StyledLine {
        let names = Columns(totalColumns: columns)
        var text = "  " + width.padded("NAME", to: names.name) + " "
        text += width.padded("SIZE", to: Columns.size, alignRight: true) + " "
        text += width.padded("FILES", to: Columns.files, alignRight: true) + " "
        text += width.padded("GROWTH", to: Columns.growth, alignRight: true) + " "
        text += width.padded("QUOTA", to: Columns.quota, alignRight: true) + " "
        text += width.padded("USE", to: Columns.bar + Columns.percent)
        return StyledLine(text, .bold)
    }

    func list(_ model: WatchModel, rows visibleRows: Int) -> [StyledLine] {
        let rows = model.rows()
        var lines: [StyledLine] = []
        if rows.isEmpty {
            let text = model.frame == nil ? "  waiting for the engine…" : "  (no subdirectories)"
            lines.append(StyledLine(text, .dim))
        }
        for index in model.state.cursor.visibleRange(count: rows.count, visibleRows: visibleRows) {
            lines.append(row(rows[index], selected: index == model.state.cursor.selected, format: model.format))
        }
        return lines + Array(repeating: .blank, count: max(0, visibleRows - lines.count))
    }

    /// One directory: marker, name, size, files, growth, quota, usage bar and share.
    public func row(_ row: WatchRow, selected: Bool, format: ByteFormat) -> StyledLine {
        let names = Columns(totalColumns: columns)
        let state = row.quota?.state
        var nameStyle = state.map(Self.quotaStyle) ?? .plain
        if selected { nameStyle.reverse = true }
        var line = StyledLine(selected ? "> " : "  ", selected ? .bold : .plain)
        line.append(width.padded(row.display + "/", to: names.name), nameStyle)
        line.append(" " + width.padded(format.string(row.size), to: Columns.size, alignRight: true))
        line.append(" " + width.padded(String(row.files), to: Columns.files, alignRight: true))
        line.append(" " + width.padded(Self.growthText(row.growth, format), to: Columns.growth, alignRight: true))
        guard let quota = row.quota else { return line }
        line.append(" " + width.padded(format.string(quota.effectiveLimit), to: Columns.quota, alignRight: true))
        let bar = Self.bar(used: quota.used ?? 0, limit: quota.effectiveLimit, inner: Columns.bar - 2)
        line.append(" [")
        line.append(bar.filled, Self.quotaStyle(quota.state))
        line.append(bar.empty + "]")
        line.append(width.padded(bar.percent, to: Columns.percent, alignRight: true), Self.quotaStyle(quota.state))
        return line
    }

    /// A usage bar of `inner` cells: `#` for the used share (all of them past the limit).
    public static func bar(used: UInt64, limit: UInt64, inner: Int) -> (filled: String, empty: String, percent: String)
    {
        guard limit > 0 else { return (String(repeating: "#", count: inner), "", "  ∞%") }
        let share = Double(used) / Double(limit)
        let cells = Int(min(share * Double(inner), Double(inner)).rounded(.down))
        let filled = used > 0 && cells == 0 ? 1 : cells
        let percent = share >= 9.995 ? ">999%" : "\(Int((share * 100).rounded()))%"
        return (String(repeating: "#", count: filled), String(repeating: ".", count: inner - filled), percent)
    }

    /// "+1.2 MB/s", "-300 B/s", "0 B/s", "" while unknown.
    public static func growthText(_ rate: Double?, _ format: ByteFormat) -> String {
        guard let rate else { return "" }
        let magnitude = format.string(UInt64(abs(rate).rounded()))
        if magnitude.hasPrefix("0 ") { return "0 B/s" }
        return (rate < 0 ? "-" : "+") + magnitude + "/s"
    }

    func candidates(_ model: WatchModel, rows: Int, now: Int64) -> [StyledLine] {
        guard rows > 0 else { return [] }
        let sorted = model.candidates.values.sorted {
            $0.allocated != $1.allocated ? $0.allocated > $1.allocated : $0.path < $1.path
        }
        var lines = [StyledLine(" cleanup candidates (\(sorted.count))", .bold)]
        let pathColumns = max(10, columns - 2 - Columns.size - 1 - 18)
        for candidate in sorted.prefix(rows - 1) {
            let age = candidate.idleSeconds + max(0, (now - candidate.reportedAt) / 1000)
            var line = StyledLine(
                "  " + width.padded(width.printable(candidate.path), to: pathColumns), Self.quotaStyle("warning"))
            line.append(
                " " + width.padded(model.format.string(candidate.allocated), to: Columns.size, alignRight: true))
            line.append("  idle " + DurationWords.compact(age), .dim)
            lines.append(line)
        }
        return lines + Array(repeating: .blank, count: max(0, rows - lines.count))
    }

    func log(_ model: WatchModel, rows: Int) -> [StyledLine] {
        var lines = [StyledLine(" events", .bold)]
        for event in model.log.suffix(rows - 1) {
            // The log shows the time of day; the date and offset are in pipe mode's lines.
            let clock = String(event.time.dropFirst(11).prefix(8))
            var line = StyledLine(" \(clock) ", .dim)
            line.append(event.kind, Self.severityStyle(event.severity))
            line.append(" " + event.details)
            lines.append(line)
        }
        return lines + Array(repeating: .blank, count: max(0, rows - lines.count))
    }

    func footer() -> StyledLine {
        StyledLine(
            " arrows move  enter open  bksp up  s sort  a size  c clean  p pause  ? help  q quit", .reverse)
    }

    // MARK: Colours

    public static func quotaStyle(_ state: String) -> TextStyle {
        switch state {
        case "ok": TextStyle(foreground: .green)
        case "warning": TextStyle(foreground: .yellow, bold: true)
        case "breach": TextStyle(foreground: .red, bold: true)
        default: .plain
        }
    }

    static func levelStyle(_ level: String) -> TextStyle {
        switch level {
        case "normal": quotaStyle("ok")
        case "warning": quotaStyle("warning")
        default: quotaStyle("breach")
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
