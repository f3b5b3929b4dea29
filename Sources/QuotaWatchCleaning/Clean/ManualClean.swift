import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Deleting what the storage page selected, through the same ``Deleter`` and audit log as the
/// automatic cleaners: in the daemon on its cleanup runner (``SelectionCleaner``), or in the
/// CLI when no daemon serves ROOT (``runLocally(root:items:named:protection:stateDirectory:dryRun:)``).
package enum ManualClean {
    /// The cleaner name the audit log and the `cleanup` event give these deletions.
    package static let cleanerName = "clean"

    /// Removes each item if it is still the inode that was listed, then each named path whole.
    /// The audit rule is the item's category (with the kind for user files), or `path`.
    static func remove(
        _ items: [CleanItem], named: [NamedPath] = [], remover: Remover, cancellation: Cancellation = Cancellation()
    ) throws -> CleanupResult {
        var result = CleanupResult()
        // A group at a time (one sync of the intents, one look at `/proc`), cancellable between.
        var start = 0
        while start < items.count {
            try cancellation.check()
            let group = items[start..<min(start + Deleter.groupSize, items.count)]
            let outcomes = remover.removeGroup(
                group.map { ($0.path, FileIdentity(device: $0.device, inode: $0.inode), $0.auditRule) })
            for (item, outcome) in zip(group, outcomes) {
                guard result.record(outcome, path: item.path, inDirectory: nil) else { return result }
            }
            start += group.count
        }
        try cancellation.check()
        _ = NamedPaths.remove(named, remover: remover, into: &result)
        return result
    }

    /// The deleter's protection for a selection: the configured one, and `Documents/` except
    /// for the user files the selection named and what lies below a path it names.
    static func protection(
        _ base: CleanupProtection, items: [CleanItem], named: [NamedPath] = []
    ) -> Deleter.Protection {
        let userFiles = Set(items.filter { $0.category == .userFiles }.map(\.path))
        return { path in
            base.isProtected(path, userSelected: userFiles.contains(path) || NamedPaths.covers(named, path))
        }
    }

    /// Deletes `items` from the CLI, for a ROOT no daemon serves. A real run writes the audit
    /// log in `stateDirectory` (the daemon's for this ROOT), resolving first any intent a crash
    /// left open; a dry run checks everything and records nothing.
    package static func runLocally(
        root: FileDescriptor, items: [CleanItem], named: [NamedPath] = [], protection: CleanupProtection,
        stateDirectory: [UInt8]?, dryRun: Bool
    ) throws(ManualCleanError) -> CleanDeletionReport {
        let run = "clean-\(ProcessIdentity.processID)-\(WallTime.now().millisecondsSinceEpoch)"
        let deleter: Deleter
        do {
            deleter = try Deleter(
                root: root, dryRun: dryRun, isProtected: Self.protection(protection, items: items, named: named),
                writers: OpenWritersSnapshot())
        } catch {
            throw ManualCleanError("cannot prepare the deleter: \(error)")
        }
        let backend: any RemovalBackend
        if dryRun {
            backend = UnrecordedDeleter(deleter: deleter)
        } else {
            guard let stateDirectory else {
                throw ManualCleanError(
                    "no state directory for the audit log of deletions: set STATE_DIRECTORY (or HOME), or use --dry-run"
                )
            }
            let log: AuditLog
            do {
                log = try AuditLog(directory: stateDirectory)
            } catch {
                // `clean` has no --clean to leave out: a dry run is its way to delete nothing.
                throw ManualCleanError(
                    error.reason + "; set STATE_DIRECTORY to a writable directory, or use --dry-run to delete nothing")
            }
            log.resolveIntentsLeftOpen(using: deleter)
            backend = AuditedDeleter(deleter: deleter, log: log)
        }
        let remover = Remover(backend: backend, trigger: "manual", cleaner: cleanerName, run: run)
        let result = (try? remove(items, named: named, remover: remover)) ?? CleanupResult()
        return CleanDeletionReport(run: run, dryRun: dryRun, result: result)
    }
}

/// Why a deletion could not start, with the way out.
package struct ManualCleanError: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
