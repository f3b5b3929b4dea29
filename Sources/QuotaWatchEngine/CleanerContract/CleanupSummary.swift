import QuotaWatchCore
import QuotaWatchPolicy

/// How one cleaner fared in a run (summed over the run's triggers).
package struct CleanerReport: Sendable, Hashable {
    package var name: String
    package var removed: [RemovedItem] = []
    package var skipped: [SkippedItem] = []
    /// The error it threw, or that it timed out; nil when it returned.
    package var error: String?
    /// Bytes it said it freed without naming them per file (``CleanupResult/unattributedFreedBytes``).
    package var unattributedFreedBytes: UInt64 = 0

    package init(name: String) { self.name = name }

    package var freedBytes: UInt64 { removed.reduce(unattributedFreedBytes) { Saturating.sum($0, $1.freedBytes) } }
}

/// One cleanup run, as the completion callback gets it and the event stream prints it.
package struct CleanupSummary: Sendable, Hashable {
    package var runID: String
    /// The triggers the run served, in arrival order (more than one when triggers that came
    /// during the previous run were coalesced into this one).
    package var triggers: [CleanupTrigger]
    package var cleaners: [CleanerReport]
    package var seconds: Double
    package var dryRun: Bool
    package var time: WallTime

    package init(
        runID: String, triggers: [CleanupTrigger], cleaners: [CleanerReport], seconds: Double, dryRun: Bool,
        time: WallTime
    ) {
        self.runID = runID
        self.triggers = triggers
        self.cleaners = cleaners
        self.seconds = seconds
        self.dryRun = dryRun
        self.time = time
    }

    package var removedCount: Int { cleaners.reduce(0) { $0 + $1.removed.count } }
    package var freedBytes: UInt64 { cleaners.reduce(0) { Saturating.sum($0, $1.freedBytes) } }

    /// The `cleanup` event's shape (``CleanupSummaryDocument``): `trigger` is the first
    /// trigger's kind and `triggers` all of them; in a dry run each cleaner lists the `paths`
    /// it would remove, in a real run those it removed. `root` is the daemon's ROOT on an
    /// event line, nil in the `clean` reply.
    package func document(root: String?) -> CleanupSummaryDocument {
        CleanupSummaryDocument(
            root: root, time: time.iso8601, run: runID, trigger: triggers.first?.name ?? "manual",
            triggers: triggers.map(\.contract), removed: UInt64(removedCount), freed: freedBytes, seconds: seconds,
            dryRun: dryRun,
            cleaners: cleaners.map { report in
                CleanupSummaryDocument.Cleaner(
                    name: report.name, removed: UInt64(report.removed.count), freed: report.freedBytes,
                    error: report.error, paths: report.removed.map { EscapedName.string($0.path) },
                    skipped: Self.skippedGroups(report.skipped))
            })
    }

    /// The `clean` reply: the event line without `root`.
    package var jsonLine: String { ContractJSON.encodedString(document(root: nil)) }

    /// How many example paths each reason of `skipped` lists.
    package static let skippedExamples = 5

    /// What a cleaner chose but kept, and why (a mount point, a writer, protection, a full
    /// audit log), counted per reason with the first few paths as examples:
    /// `{"protected":{"count":303,"examples":[…5 paths]}}`. Listed whole, a directory's 303
    /// protected files made every cleanup line 26 kB, each one sent to every subscriber.
    static func skippedGroups(_ skipped: [SkippedItem]) -> [String: CleanupSummaryDocument.Skipped] {
        var groups: [String: CleanupSummaryDocument.Skipped] = [:]
        for item in skipped {
            var group = groups[item.reason] ?? .init(count: 0, examples: [])
            group.count += 1
            if group.examples.count < skippedExamples { group.examples.append(EscapedName.string(item.path)) }
            groups[item.reason] = group
        }
        return groups
    }
}
