import QuotaWatchSystem

/// A long list of paths for people: the first `limit` lines, then "… and N more". On a terminal
/// a deletion's list is cut at 20 unless `--top N` says otherwise; piped, it is whole unless
/// `--top` is given. The whole list is always in `--json` and in the audit log.
enum CappedList {
    static let terminalDefault = 20

    /// The limit for a list printed to standard output: `--top` when given, else
    /// ``terminalDefault`` on a terminal, else none.
    static func limit(top: Int?) -> Int? {
        top ?? (FileDescriptor.standardOutput.isTerminal ? terminalDefault : nil)
    }

    static func lines(_ lines: [String], limit: Int?, indent: String) -> String {
        guard let limit, lines.count > limit else { return lines.map { indent + $0 + "\n" }.joined() }
        let shown = lines.prefix(limit).map { indent + $0 + "\n" }.joined()
        return shown + indent
            + "… and \(grouped(lines.count - limit)) more (--top N, --json or the audit log for all)\n"
    }

    /// 6051 as "6 051", as the README writes counts.
    static func grouped(_ count: Int) -> String {
        let digits = Array(String(count))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += " " }
            text.append(digit)
        }
        return text
    }
}
