import QuotaWatchCore

/// The directory list: headings, rows, usage bars.
extension WatchLayout {
    func headings(_ names: Columns) -> StyledLine {
        var text = "  " + width.padded("NAME", to: names.name) + " "
        text += width.padded("SIZE", to: Columns.size, alignRight: true) + " "
        text += width.padded("FILES", to: Columns.files, alignRight: true) + " "
        text += width.padded("GROWTH", to: Columns.growth, alignRight: true)
        if names.showsQuotas {
            text += " " + width.padded("QUOTA", to: Columns.quota, alignRight: true) + " "
            text += width.padded("USE", to: Columns.bar + Columns.percent)
        }
        return StyledLine(text, .bold)
    }

    func list(_ model: WatchModel, rows areaRows: Int, columns names: Columns) -> [StyledLine] {
        let rows = model.rows()
        let omitted = Self.omitted(model)
        // A cut list says so on its last row, whatever the scroll position.
        let visibleRows = omitted > 0 ? max(1, areaRows - 1) : areaRows
        var lines: [StyledLine] = []
        if rows.isEmpty {
            let text = model.frame == nil ? "  waiting for the engine…" : "  (empty directory)"
            lines.append(StyledLine(text, .dim))
        }
        for index in model.state.cursor.visibleRange(count: rows.count, visibleRows: visibleRows) {
            lines.append(
                row(rows[index], selected: index == model.state.cursor.selected, format: model.format, columns: names))
        }
        lines += Array(repeating: .blank, count: max(0, visibleRows - lines.count))
        guard omitted > 0, areaRows > 1 else { return lines }
        let shown = model.frame?.entries.count ?? 0
        return lines + [StyledLine("  … \(omitted) more (the largest \(shown) are listed)", .dim)]
    }

    /// One directory or file: marker, name (cut with `…`), size, files, growth, quota, usage bar
    /// and share. A directory's name ends in `/` (ncdu's and ls -F's mark); a file's does not,
    /// and its FILES column is empty. `columns` defaults to the widest name column the screen
    /// allows.
    package func row(_ row: WatchRow, selected: Bool, format: ByteFormat, columns names: Columns? = nil) -> StyledLine {
        let names = names ?? Columns(totalColumns: columns)
        let state = row.quota?.state
        var nameStyle = state.map { Self.quotaStyle($0) } ?? .plain
        if selected { nameStyle.reverse = true }
        var line = StyledLine(selected ? "> " : "  ", selected ? .bold : .plain)
        line.append(width.padded(row.display + (row.isDirectory ? "/" : ""), to: names.name), nameStyle)
        line.append(" " + width.padded(format.string(row.size), to: Columns.size, alignRight: true))
        line.append(" " + width.padded(row.isDirectory ? String(row.files) : "", to: Columns.files, alignRight: true))
        line.append(" " + width.padded(Self.growthText(row.growth, format), to: Columns.growth, alignRight: true))
        guard let quota = row.quota, names.showsQuotas else { return line }
        line.append(" " + width.padded(format.string(quota.effectiveLimit), to: Columns.quota, alignRight: true))
        let bar = Self.bar(used: quota.used ?? 0, limit: quota.effectiveLimit, inner: Columns.bar - 2)
        line.append(" [")
        line.append(bar.filled, Self.quotaStyle(quota.state))
        line.append(bar.empty + "]")
        line.append(width.padded(bar.percent, to: Columns.percent, alignRight: true), Self.quotaStyle(quota.state))
        return line
    }

    /// A usage bar of `inner` cells: `#` for each whole share of the limit used (all of them past
    /// the limit), `.` for the rest. Proportional, as ncdu's: a few percent fill no cell (the
    /// percentage beside says how much), so a nearly empty quota does not look a tenth full.
    package static func bar(used: UInt64, limit: UInt64, inner: Int) -> (filled: String, empty: String, percent: String)
    {
        guard limit > 0 else { return (String(repeating: "#", count: inner), "", "  ∞%") }
        let share = Double(used) / Double(limit)
        let filled = min(inner, Int(Saturating.int64((share * Double(inner)).rounded(.down))))
        let percent = share >= 9.995 ? ">999%" : "\(Int((share * 100).rounded()))%"
        return (String(repeating: "#", count: filled), String(repeating: ".", count: inner - filled), percent)
    }

    /// "+1.2 MB/s", "-300 B/s", "0 B/s", "" while unknown.
    package static func growthText(_ rate: Double?, _ format: ByteFormat) -> String {
        guard let rate else { return "" }
        let magnitude = format.string(Saturating.uint64(abs(rate).rounded()))
        if magnitude.hasPrefix("0 ") { return "0 B/s" }
        return (rate < 0 ? "-" : "+") + magnitude + "/s"
    }
}
