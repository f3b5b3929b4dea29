/// The human table of `scan` and `status`: largest first, aligned columns.
package enum TableRenderer {
    package static func render(_ report: TreeReport, format: ByteFormat) -> String {
        let rows = report.directories.enumerated().sorted { lhs, rhs in
            if lhs.element.allocated != rhs.element.allocated { return lhs.element.allocated > rhs.element.allocated }
            return lhs.offset < rhs.offset
        }.map(\.element)
        var table: [[String]] = [["ALLOCATED", "APPARENT", "FILES", "PATH"]]
        for row in rows {
            table.append([format.string(row.allocated), format.string(row.apparent), "\(row.files)", row.path])
        }
        var widths = [Int](repeating: 0, count: 3)
        for line in table {
            for column in 0..<3 { widths[column] = max(widths[column], line[column].count) }
        }
        var output = "ROOT: \(printable(report.root))\n"
        for line in table {
            for column in 0..<3 {
                output += String(repeating: " ", count: widths[column] - line[column].count) + line[column] + "  "
            }
            output += printable(line[3]) + "\n"
        }
        return output
    }

    /// Keeps a name with a newline or other control character on one table line, escaped the
    /// one way every human output escapes it (``HumanText``).
    package static func printable(_ path: String) -> String { HumanText.escaped(path) }
}
