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
        var categories: [PolicyJSON] = []
        for summary in page {
            total.count += summary.totals.count
            total.allocatedBytes = Saturating.sum(total.allocatedBytes, summary.totals.allocatedBytes)
            total.apparentBytes = Saturating.sum(total.apparentBytes, summary.totals.apparentBytes)
            var fields = totalsFields(summary.totals)
            fields["name"] = .string(summary.category.rawValue)
            fields["title"] = .string(summary.category.title)
            fields["groups"] = .array(
                summary.groups.map { group in
                    var fields = totalsFields(group.totals)
                    fields["name"] = .string(EscapedName.string(group.key.name))
                    fields["path"] = group.key.kind == nil ? .string(EscapedName.string(group.key.group)) : .null
                    return .object(fields)
                })
            fields["items"] = .array(summary.items.map { .object(itemFields($0)) })
            categories.append(.object(fields))
        }
        var document: [String: PolicyJSON] = [
            "root": .string(root), "source": .string(source), "categories": .array(categories),
            "total": .object(totalsFields(total)),
            "held": .array(
                held.map {
                    .object(["path": .string(EscapedName.string($0.item.path)), "reason": .string($0.hold.rawValue)])
                }
            ),
        ]
        if let engine { document["engine"] = engineFields(engine) }
        return PolicyJSON.object(document).encoded + "\n"
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

    private func totalsFields(_ totals: CleanTotals) -> [String: PolicyJSON] {
        [
            "files": .integer(Int64(totals.count)), "allocated": .unsigned(totals.allocatedBytes),
            "apparent": .unsigned(totals.apparentBytes),
        ]
    }

    private func itemFields(_ item: CleanItem) -> [String: PolicyJSON] {
        let group = CleanGroupKey(item)
        return [
            "path": .string(EscapedName.string(item.path)), "allocated": .unsigned(item.allocatedBytes),
            "apparent": .unsigned(item.apparentBytes),
            "age_seconds": .integer(item.ageSeconds(nowNanoseconds: nowNanoseconds)),
            "modified": .string(WallTime(millisecondsSinceEpoch: item.modifiedNanoseconds / 1_000_000).iso8601),
            "group": item.classification.group.isEmpty && group.kind == nil
                ? .null : .string(EscapedName.string(group.name)),
            "kind": item.classification.kind.map { .string($0.rawValue) } ?? .null,
        ]
    }

    private func engineFields(_ engine: EngineReport) -> PolicyJSON {
        .object([
            "events": .unsigned(engine.events), "rescanned_dirs": .unsigned(engine.rescannedDirectories),
            "overflows": .unsigned(engine.overflows), "watches": .integer(Int64(engine.watches)),
            "requests": .unsigned(engine.requests),
        ])
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
