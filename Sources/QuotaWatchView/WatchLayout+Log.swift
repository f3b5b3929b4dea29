import QuotaWatchCore

/// The cleanup candidates and the event log.
extension WatchLayout {
    func candidates(_ model: WatchModel, rows: Int, now: Int64) -> [StyledLine] {
        guard rows > 0 else { return [] }
        let sorted = model.shownCandidates.values.sorted {
            $0.allocated != $1.allocated ? $0.allocated > $1.allocated : $0.path < $1.path
        }
        let total = sorted.reduce(UInt64(0)) { $0 + $1.allocated }
        var lines = [StyledLine(" cleanup candidates (\(sorted.count), \(model.format.string(total)))", .bold)]
        let shown = sorted.prefix(rows - 1)
        // As wide as the longest path shown needs, so the sizes stay beside the paths.
        let room = max(10, columns - 2 - Columns.size - 1 - 18)
        let longest = shown.map { width.columns(width.printable($0.path)) }.max() ?? 0
        let pathColumns = min(room, max(24, longest + 1))
        for candidate in shown {
            let age = candidate.idleSeconds + max(0, (now - candidate.reportedAt) / 1000)
            var line = StyledLine(
                "  "
                    + width.padded(
                        width.truncatedFront(width.printable(candidate.path), to: pathColumns), to: pathColumns),
                Self.quotaStyle("warning"))
            line.append(
                " " + width.padded(model.format.string(candidate.allocated), to: Columns.size, alignRight: true))
            line.append("  idle " + DurationWords.compact(age), .dim)
            lines.append(line)
        }
        return lines + Array(repeating: .blank, count: max(0, rows - lines.count))
    }

    /// The newest events, one line each, cut with `…`; a run of leftovers folded into one.
    func log(_ model: WatchModel, rows: Int) -> [StyledLine] {
        guard rows > 0 else { return [] }
        var lines = [StyledLine(" events (l: all, in full)", .bold)]
        for event in Self.folded(model.shownLog, format: model.format).suffix(rows - 1) {
            lines.append(logLine(event).clippedWithEllipsis(to: columns, width: width))
        }
        return lines + Array(repeating: .blank, count: max(0, rows - lines.count))
    }

    /// `l`: every event kept, newest last, each wrapped over as many lines as it needs, the
    /// window ``WatchState/logOffset`` lines back from the newest.
    func fullLog(_ model: WatchModel, rows: Int) -> [StyledLine] {
        guard rows > 0 else { return [] }
        let lines = fullLogLines(model)
        let shown = max(0, rows - 1)
        let offset = min(model.state.logOffset, max(0, lines.count - shown))
        let end = lines.count - offset
        let start = max(0, end - shown)
        let position =
            lines.count > shown ? ", lines \(start + 1)-\(end) of \(lines.count) (pgup/pgdn, home/end)" : ""
        let header = StyledLine(
            " events: all \(model.shownLog.count) kept, newest last\(position) (l or esc: back to the list)", .bold)
        let body = Array(lines[start..<end])
        return [header] + body + Array(repeating: .blank, count: max(0, shown - body.count))
    }

    /// How far back the expanded log can scroll on this screen: the lines that do not fit.
    package func maximumLogOffset(_ model: WatchModel) -> Int {
        max(0, fullLogLines(model).count - max(0, rows - 5))
    }

    /// Every event of the expanded log wrapped to the screen's width, oldest first.
    private func fullLogLines(_ model: WatchModel) -> [StyledLine] {
        let indent = 10  // " hh:mm:ss "
        var body: [StyledLine] = []
        for event in model.shownLog {
            let text = event.details.isEmpty ? event.kind : event.kind + " " + event.details
            let pieces = Self.wrapped(text, to: max(10, columns - indent), width: width)
            var wrapped: [StyledLine] = []
            for (index, piece) in pieces.enumerated() {
                if index == 0 {
                    var line = StyledLine(" \(Self.clock(event)) ", .dim)
                    let kind = String(piece.prefix(event.kind.count))
                    line.append(kind, Self.severityStyle(event.severity))
                    line.append(String(piece.dropFirst(kind.count)))
                    wrapped.append(line)
                } else {
                    wrapped.append(StyledLine(String(repeating: " ", count: indent) + piece))
                }
            }
            body += wrapped
        }
        return body
    }

    func logLine(_ event: EventLine) -> StyledLine {
        var line = StyledLine(" \(Self.clock(event)) ", .dim)
        line.append(event.kind, Self.severityStyle(event.severity))
        if !event.details.isEmpty { line.append(" " + event.details) }
        return line
    }

    /// The log shows the time of day; the date and offset are in pipe mode's lines.
    static func clock(_ event: EventLine) -> String { String(event.time.dropFirst(11).prefix(8)) }

    /// Runs of at least ``foldedRun`` leftover events in a row become one line ("57 leftovers,
    /// 33.8 MB"): a start-up flood must not push the first breaches out of the log. Each is
    /// still in the candidate list, and in the full log (`l`).
    package static func folded(_ log: [EventLine], format: ByteFormat) -> [EventLine] {
        var result: [EventLine] = []
        var run: [EventLine] = []
        func flush() {
            if run.count >= foldedRun {
                let bytes = run.reduce(UInt64(0)) { $0 + ($1.leftover?.allocated ?? 0) }
                result.append(
                    EventLine(
                        time: run[run.count - 1].time, kind: "leftover",
                        details: "\(run.count) leftovers, \(format.string(bytes)) (see the cleanup candidates)",
                        severity: .warning))
            } else {
                result += run
            }
            run.removeAll()
        }
        for event in log {
            if event.leftover != nil {
                run.append(event)
            } else {
                flush()
                result.append(event)
            }
        }
        flush()
        return result
    }

    static let foldedRun = 3

    /// The words of `text` split at spaces, with a number and the unit after it as one word.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            if let last = words.last, last.last?.isNumber == true, isUnit(word) {
                words[words.count - 1] = last + " " + word
            } else {
                words.append(word)
            }
        }
        return words
    }

    /// A size or rate unit as ``ByteFormat`` writes them, maybe followed by punctuation.
    static func isUnit(_ word: String) -> Bool {
        var unit = Substring(word)
        while let last = unit.last, ",.;:)".contains(last) { unit = unit.dropLast() }
        if unit.hasSuffix("/s") { unit = unit.dropLast(2) }
        return ["B", "kB", "KB", "MB", "GB", "TB", "PB", "EB", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"].contains(unit)
    }

    /// `text` in lines of at most `columns`, broken at spaces where it can be (a word longer
    /// than a line is broken where it must); a number and its unit ("993.0 KB/s") stay together.
    static func wrapped(_ text: String, to columns: Int, width: DisplayWidth) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in Self.words(text) {
            let candidate = current.isEmpty ? word : current + " " + word
            if width.columns(candidate) <= columns {
                current = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = word
            // A word longer than a line: cut it in pieces.
            while width.columns(current) > columns {
                var piece = ""
                var used = 0
                var rest = Substring(current)
                while let scalar = rest.unicodeScalars.first {
                    let scalarColumns = max(0, width.scalarWidth(scalar))
                    if used + scalarColumns > columns { break }
                    piece.unicodeScalars.append(scalar)
                    used += scalarColumns
                    rest = Substring(rest.unicodeScalars.dropFirst())
                }
                lines.append(piece)
                current = String(rest)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}

extension StyledLine {
    /// The line cut to `columns`, with `…` in the last column when something was cut.
    func clippedWithEllipsis(to columns: Int, width: DisplayWidth) -> StyledLine {
        guard self.columns(width) > columns, columns > 0 else { return self }
        var cut = clipped(to: columns - 1, width: width)
        cut.append(String(repeating: " ", count: max(0, columns - 1 - cut.columns(width))) + "…")
        return cut
    }
}
