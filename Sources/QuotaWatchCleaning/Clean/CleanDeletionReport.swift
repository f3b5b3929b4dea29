import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// What a deletion did, from the daemon or the CLI's own deleter: each name removed (or, in
/// a dry run, that would be) with the bytes the file system got back, each name kept and why.
///
/// `{"dry_run":false,"freed":40960,"removed":[{"freed":4096,"path":"tmp/a"}],"run":"…",
/// "skipped":[{"path":"tmp/b","reason":"open for writing by pid 42"}]}`
package struct CleanDeletionReport: Sendable, Hashable, ControlReplyDocument {
    package var run: String
    package var dryRun: Bool
    package var removed: [RemovedItem]
    package var skipped: [SkippedItem]
    /// The selection cleaner's error (it timed out, say); nil when it finished.
    package var error: String?

    package init(run: String, dryRun: Bool, result: CleanupResult) {
        self.run = run
        self.dryRun = dryRun
        removed = result.removed
        skipped = result.skipped
        error = result.error
    }

    package var freedBytes: UInt64 { removed.reduce(0) { Saturating.sum($0, $1.freedBytes) } }

    /// The reply's shape (``CleanDeletionDocument``).
    package var document: CleanDeletionDocument {
        CleanDeletionDocument(
            run: run, dryRun: dryRun, freed: freedBytes,
            removed: removed.map { .init(path: EscapedName.string($0.path), freed: $0.freedBytes) },
            skipped: skipped.map { .init(path: EscapedName.string($0.path), reason: $0.reason) }, error: error)
    }

    package func replyJSON() -> [UInt8] { ContractJSON.encode(document) }

    /// Reads a reply; a path that does not unescape (no daemon writes one) is left out.
    package static func decode(_ reply: [UInt8]) throws -> CleanDeletionReport {
        let document: CleanDeletionDocument
        do {
            document = try ContractJSON.decode(CleanDeletionDocument.self, from: reply)
        } catch {
            throw ControlProtocol.Failure("the clean_delete reply is not a deletion report")
        }
        var result = CleanupResult()
        for entry in document.removed {
            guard let path = EscapedName.bytes(entry.path) else { continue }
            result.removed.append(RemovedItem(path: path, freedBytes: entry.freed))
        }
        for entry in document.skipped {
            guard let path = EscapedName.bytes(entry.path) else { continue }
            result.skipped.append(SkippedItem(path: path, reason: entry.reason))
        }
        var report = CleanDeletionReport(run: document.run, dryRun: document.dryRun, result: result)
        report.error = document.error
        return report
    }
}
