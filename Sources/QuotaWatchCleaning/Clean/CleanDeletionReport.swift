import Foundation
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

    package var fields: [String: PolicyJSON] {
        [
            "run": .string(run), "dry_run": .bool(dryRun), "freed": .unsigned(freedBytes),
            "error": error.map { .string($0) } ?? .null,
            "removed": .array(
                removed.map {
                    .object(["path": .string(EscapedName.string($0.path)), "freed": .unsigned($0.freedBytes)])
                }
            ),
            "skipped": .array(
                skipped.map { .object(["path": .string(EscapedName.string($0.path)), "reason": .string($0.reason)]) }),
        ]
    }

    package func replyJSON() -> [UInt8] { Array(PolicyJSON.object(fields).encoded.utf8) }

    package static func decode(_ reply: [UInt8]) throws -> CleanDeletionReport {
        guard let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
            let run = object["run"] as? String, let dryRun = object["dry_run"] as? Bool,
            let removed = object["removed"] as? [[String: Any]], let skipped = object["skipped"] as? [[String: Any]]
        else { throw ControlProtocol.Failure("the clean_delete reply is not a deletion report") }
        var result = CleanupResult()
        for entry in removed {
            guard let path = (entry["path"] as? String).flatMap(EscapedName.bytes) else { continue }
            result.removed.append(RemovedItem(path: path, freedBytes: (entry["freed"] as? NSNumber)?.uint64Value ?? 0))
        }
        for entry in skipped {
            guard let path = (entry["path"] as? String).flatMap(EscapedName.bytes) else { continue }
            result.skipped.append(SkippedItem(path: path, reason: entry["reason"] as? String ?? "?"))
        }
        var report = CleanDeletionReport(run: run, dryRun: dryRun, result: result)
        report.error = object["error"] as? String
        return report
    }
}
