import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Evicts files from the breached directory until it is under its target: oldest mtime first,
/// or least recently used first (see ``EvictionSelection``). A hard-linked inode goes with all
/// its names in the directory, and counts as freed only when all of them went.
public struct EvictionCleaner: Cleaner {
    public let name: String
    public let order: EvictionOrder
    /// The stopping line, when it is not the directory's target (a cache trimmed to its limit).
    public let limit: UInt64?

    public init(name: String = "evict", order: EvictionOrder = .oldestModified, limit: UInt64? = nil) {
        self.name = name
        self.order = order
        self.limit = limit
    }

    public func clean(_ context: CleanupContext) async throws -> CleanupResult {
        guard let directory = context.directory else { return CleanupResult() }
        let target = limit ?? directory.target
        guard directory.used > target else { return CleanupResult() }
        // Every inode in eviction order, selected once: a pick that is refused (open for
        // writing, say) frees nothing, and the next one is taken until the directory is under
        // its target. Each pick costs O(its names) here, so a directory far over its quota
        // costs one sort and one removal check per name, in a dry run as in a real one.
        let picks = EvictionSelection.select(
            context.candidates.filter { !$0.isDirectory }, used: directory.used, target: 0, order: order,
            size: directory.size)
        var remaining = directory.used
        var result = CleanupResult()
        for pick in picks where remaining > target {
            try Task.checkCancellation()
            var allGone = true
            var removedNames: [[UInt8]] = []
            for path in pick.names {
                let outcome = context.remover.remove(
                    path: path, identity: FileIdentity(device: pick.device, inode: pick.inode), rule: pick.rule)
                switch outcome {
                case .removed:
                    removedNames.append(path)
                case .skipped(.gone):
                    // Removed since the run was planned (by a cleaner before this one, a
                    // registered program): its bytes have left the directory all the same.
                    result.skipped.append(SkippedItem(path: path, reason: Self.reason(outcome)))
                default:
                    allGone = false
                    result.skipped.append(SkippedItem(path: path, reason: Self.reason(outcome)))
                }
                if case .notRecorded(let error) = outcome {
                    result.error = error.message
                    break
                }
            }
            // The directory's total drops only with the inode's last name in it.
            for (index, path) in removedNames.enumerated() {
                let freed = allGone && index == removedNames.count - 1 ? pick.freesInDirectory : 0
                result.removed.append(RemovedItem(path: path, freedBytes: freed))
            }
            if allGone { remaining -= min(pick.freesInDirectory, remaining) }
            if result.error != nil { break }
        }
        return result
    }

    static func reason(_ outcome: DeletionOutcome) -> String {
        switch outcome {
        case .removed: "removed"
        case .skipped(let reason): reason.description
        case .failed(let error): "\(error)"
        case .notRecorded(let error): error.message
        }
    }
}

extension CleanupResult {
    /// Notes one removal outcome. Freed is what the file system got back, unless the caller
    /// knows what the cleaned directory drops. Returns false when the audit log refused the
    /// intent: every later removal would be refused the same way, so the cleaner stops there
    /// and reports why (``error``) once.
    mutating func record(_ outcome: DeletionOutcome, path: [UInt8], inDirectory freed: UInt64?) -> Bool {
        switch outcome {
        case .removed(let removal):
            removed.append(RemovedItem(path: path, freedBytes: freed ?? removal.freedBytes))
        case .notRecorded(let failure):
            skipped.append(SkippedItem(path: path, reason: EvictionCleaner.reason(outcome)))
            error = failure.message
            return false
        case .skipped, .failed:
            skipped.append(SkippedItem(path: path, reason: EvictionCleaner.reason(outcome)))
        }
        return true
    }
}
