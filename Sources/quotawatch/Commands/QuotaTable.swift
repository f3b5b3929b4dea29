import QuotaWatchCore
import QuotaWatchEngine

/// The table of `status --quotas`: the disk level, then one line per quota directory and rule,
/// fullest first (by share of the effective limit), columns aligned as in the tree table.
enum QuotaTable {
    static func render(_ status: QuotaStatus, format: ByteFormat) -> String {
        var output = "ROOT: \(TableRenderer.printable(status.root))\n"
        output += "LEVEL: \(TableRenderer.printable(status.level.level.rawValue))"
        if let free = status.level.free, let total = status.level.total {
            output += " (free \(format.string(free)) of \(format.string(total))"
        } else {
            output += " (free space unknown"
        }
        output += "; root holds \(format.string(status.level.rootAllocated)))\n"
        guard !status.quotas.isEmpty else { return output + "no quota directories\n" }
        let rows = status.quotas.enumerated().sorted { lhs, rhs in
            let left = share(lhs.element)
            let right = share(rhs.element)
            return left != right ? left > right : lhs.offset < rhs.offset
        }.map(\.element)
        var table: [[String]] = [
            ["USED", "LIMIT", "EFFECTIVE", "STATE", "CHANGED", "RATE", "BREACH IN", "RULE", "PATH"]
        ]
        for row in rows {
            table.append([
                row.used.map(format.string) ?? "-", format.string(row.limit), format.string(row.effectiveLimit),
                row.state.rawValue, row.secondsSinceChange.map { duration($0) + " ago" } ?? "-",
                row.bytesPerSecond >= 1 ? format.string(Saturating.uint64(row.bytesPerSecond)) + "/s" : "-",
                row.secondsToBreach.map(duration) ?? "-", TableRenderer.printable(row.rule),
                TableRenderer.printable(row.path),
            ])
        }
        let aligned = table[0].count - 1
        var widths = [Int](repeating: 0, count: aligned)
        for line in table {
            for column in 0..<aligned { widths[column] = max(widths[column], line[column].count) }
        }
        // Sizes and numbers right-aligned; state and rule left-aligned.
        let leftAligned: Set<Int> = [3, 7]
        for line in table {
            for column in 0..<aligned {
                let padding = String(repeating: " ", count: widths[column] - line[column].count)
                output += (leftAligned.contains(column) ? line[column] + padding : padding + line[column]) + "  "
            }
            output += line[aligned] + "\n"
        }
        return output
    }

    private static func share(_ row: QuotaStatus.Row) -> Double {
        guard let used = row.used, row.effectiveLimit > 0 else { return row.used == nil ? -1 : .infinity }
        return Double(used) / Double(row.effectiveLimit)
    }

    /// "45s", "12m", "3h", "2d": whole units, as durations are written in the config.
    static func duration(_ seconds: Double) -> String {
        let whole = Saturating.int64(max(0, seconds.rounded()))
        if whole < 120 { return "\(whole)s" }
        if whole < 2 * 3600 { return "\(whole / 60)m" }
        if whole < 2 * 86_400 { return "\(whole / 3600)h" }
        return "\(whole / 86_400)d"
    }
}
