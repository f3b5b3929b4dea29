import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// The storage page as a table and as JSON, and what a deletion did.
struct CleanPageOutput {
    var root: String
    /// "daemon" or "crawl": where the numbers came from.
    var source: String
    var engine: EngineReport?
    var format: ByteFormat
    var nowNanoseconds: Int64
    /// Files shown per user-file kind in the table (all of them in JSON).
    var filesPerKind: Int
    /// Removed files listed after a deletion (``CappedList``); nil for all.
    var removedShown: Int? = nil

    // MARK: The page

    func table(_ page: [CleanCategorySummary], held: [(item: CleanItem, hold: CleanHold)]) -> String {
        var rows: [(String, String, String, String)] = [("CATEGORY", "FILES", "SIZE", "")]
        var total = [CleanItem]()
        for summary in page {
            total += summary.items
            rows.append(
                (
                    summary.category.rawValue, "\(summary.totals.count)", format.string(summary.totals.allocatedBytes),
                    summary.category.title
                ))
            for group in summary.groups {
                let name = TableRenderer.printable(EscapedName.string(group.key.name))
                rows.append(("  " + name, "\(group.totals.count)", format.string(group.totals.allocatedBytes), ""))
                guard summary.category == .userFiles else { continue }
                for item in group.items.prefix(filesPerKind) {
                    let age = Self.age(item.ageSeconds(nowNanoseconds: nowNanoseconds))
                    rows.append(
                        ("", "", format.string(item.allocatedBytes), "\(age) old  " + display(item.path)))
                }
                if group.items.count > filesPerKind {
                    rows.append(("", "", "", "… and \(group.items.count - filesPerKind) more (--top N, or --json)"))
                }
            }
        }
        let totals = CleanTotals(total)
        rows.append(("TOTAL", "\(totals.count)", format.string(totals.allocatedBytes), ""))
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let countWidth = rows.map(\.1.count).max() ?? 0
        let sizeWidth = rows.map(\.2.count).max() ?? 0
        var text = "ROOT: \(TableRenderer.printable(root)) (\(sourceText))\n"
        for row in rows {
            var line = row.0.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
            line += String(repeating: " ", count: countWidth - row.1.count) + row.1 + "  "
            line += String(repeating: " ", count: sizeWidth - row.2.count) + row.2
            if !row.3.isEmpty { line += "  " + row.3 }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        for (item, hold) in held {
            text += "kept: \(display(item.path)) (\(Self.describe(hold)))\n"
        }
        return text
    }

    /// How to delete, for the end of the page.
    static func howToDelete(root: String, anyCategory: Bool = true) -> String {
        // ROOT is shown as every name is (it may hold a newline, a tab or ESC).
        let root = TableRenderer.printable(root)
        // Eight rows of zeros say nothing: a tree that is no app's data container is told how
        // to delete by path, first.
        let noCategory =
            anyCategory
            ? ""
            : """
            No file here is in a category (the categories are those of an iOS app's data container).
            Any file or directory below ROOT goes by its path, whole:
              quotawatch clean \(root) --dry-run --path PATH        see what would go
              quotawatch clean \(root) --yes --path PATH            delete it

            """
        return noCategory + """
            Nothing was deleted. To delete, name what goes and add --yes (or --dry-run to see it first):
              quotawatch clean \(root) --yes --category caches [--older-than 7d] [--larger-than 1MB]
              quotawatch clean \(root) --yes --category caches:NAME      one cache business
              quotawatch clean \(root) --yes --category all             every category but your files
              quotawatch clean \(root) --yes --kind video               your files: by kind
              quotawatch clean \(root) --yes --path PATH               any file or directory, whole

            """
    }

    func json(_ page: [CleanCategorySummary], held: [(item: CleanItem, hold: CleanHold)]) -> String {
        var total = CleanTotals()
        var categories: [CleanPageDocument.Category] = []
        for summary in page {
            total.count += summary.totals.count
            total.allocatedBytes = Saturating.sum(total.allocatedBytes, summary.totals.allocatedBytes)
            total.apparentBytes = Saturating.sum(total.apparentBytes, summary.totals.apparentBytes)
            categories.append(
                CleanPageDocument.Category(
                    name: summary.category.rawValue, title: summary.category.title, totals: totals(summary.totals),
                    groups: summary.groups.map { group in
                        CleanPageDocument.Group(
                            name: EscapedName.string(group.key.name),
                            path: group.key.kind == nil ? EscapedName.string(group.key.group) : nil,
                            totals: totals(group.totals))
                    },
                    items: summary.items.map(item)))
        }
        let document = CleanPageDocument(
            root: root, source: source,
            engine: engine.map {
                CleanPageDocument.Engine(
                    events: $0.events, rescannedDirectories: $0.rescannedDirectories, overflows: $0.overflows,
                    watches: Int64($0.watches), requests: $0.requests)
            },
            categories: categories,
            held: held.map { .init(path: EscapedName.string($0.item.path), reason: $0.hold.rawValue) },
            total: totals(total))
        return ContractJSON.encodedString(document) + "\n"
    }

    // MARK: A deletion

    /// What was removed and kept, then the summary, last, where it is seen after a long list.
    func deletionText(_ report: CleanDeletionReport) -> String {
        let verb = report.dryRun ? "would remove" : "removed"
        var text = CappedList.lines(
            report.removed.map { "\(format.string($0.freedBytes).leftPadded(10))  \(display($0.path))" },
            limit: removedShown, indent: "  ")
        if !report.skipped.isEmpty { text += "kept \(report.skipped.count):\n" }
        text += CappedList.lines(
            report.skipped.map { "\(display($0.path)): \($0.reason)" }, limit: removedShown, indent: "  ")
        if let error = report.error { text += "error: \(error)\n" }
        text += "\(verb) \(report.removed.count) file(s), freeing \(format.string(report.freedBytes))"
        text += report.dryRun ? " (dry run: nothing was removed)\n" : " (run \(report.run))\n"
        return text
    }

    func deletionJSON(_ report: CleanDeletionReport) -> String {
        var document = report.document
        document.root = root
        document.source = source
        return ContractJSON.encodedString(document) + "\n"
    }

    // MARK: Pieces

    private var sourceText: String { source == "daemon" ? "live numbers from the daemon" : "crawled now" }

    private func display(_ path: [UInt8]) -> String { TableRenderer.printable(EscapedName.string(path)) }

    private func totals(_ totals: CleanTotals) -> CleanPageDocument.Totals {
        CleanPageDocument.Totals(
            files: Int64(totals.count), allocated: totals.allocatedBytes, apparent: totals.apparentBytes)
    }

    private func item(_ item: CleanItem) -> CleanPageDocument.Item {
        let group = CleanGroupKey(item)
        return CleanPageDocument.Item(
            path: EscapedName.string(item.path), allocated: item.allocatedBytes, apparent: item.apparentBytes,
            ageSeconds: item.ageSeconds(nowNanoseconds: nowNanoseconds),
            modified: WallTime(millisecondsSinceEpoch: item.modifiedNanoseconds / 1_000_000).iso8601,
            group: item.classification.group.isEmpty && group.kind == nil ? nil : EscapedName.string(group.name),
            kind: item.classification.kind?.rawValue)
    }

    static func describe(_ hold: CleanHold) -> String {
        switch hold {
        case .openForWriting: "a download still open for writing"
        case .newestDyldCache: "the newest dyld cache, the one in use"
        }
    }

    /// "40s", "12m", "5h", "3d": the largest whole unit.
    static func age(_ seconds: Int64) -> String {
        if seconds >= 86_400 { return "\(seconds / 86_400)d" }
        if seconds >= 3600 { return "\(seconds / 3600)h" }
        if seconds >= 60 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
