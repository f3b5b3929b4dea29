import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Evicts files from the breached directory until it is under its target: oldest mtime first,
/// or least recently used first (see ``EvictionSelection``). A hard-linked inode goes with all
/// its names in the directory, and counts as freed only when all of them went.
package struct EvictionCleaner: Cleaner {
    package let name: String
    package let order: EvictionOrder
    /// The stopping line, when it is not the directory's target (a cache trimmed to its limit).
    package let limit: UInt64?

    package init(name: String = "evict", order: EvictionOrder = .oldestModified, limit: UInt64? = nil) {
        self.name = name
        self.order = order
        self.limit = limit
    }

    package func clean(_ context: CleanupContext) throws -> CleanupResult {
        guard let directory = context.directory else { return CleanupResult() }
        let target = limit ?? directory.target
        guard directory.used > target else { return CleanupResult() }
        // Every inode in eviction order, selected once: a pick that is refused (open for
        // writing, say) frees nothing, and the next one is taken until the directory is under
        // its target. Each pick costs O(its names) here, so a directory far over its quota
        // costs one sort and one removal check per name, in a dry run as in a real one.
        let picks = EvictionSelection.select(
            context.candidates.filter { !$0.isDirectory }, used: directory.used, target: 0, order: order,
            size: directory.size, nowNanoseconds: context.nowNanoseconds)
        var remaining = directory.used
        var result = CleanupResult()
        var next = 0
        while next < picks.count, remaining > target, result.error == nil {
            try context.cancellation.check()
            // The picks one-by-one eviction would take if each went: every one starts above
            // the target. Those refused leave the directory fuller, so the next group goes on
            // from there; no pick is taken that one-by-one eviction would not take.
            var group: [EvictionPick] = []
            var expected = remaining
            var names = 0
            while next < picks.count, expected > target, names < Deleter.groupSize {
                group.append(picks[next])
                expected -= min(picks[next].freesInDirectory, expected)
                names += picks[next].names.count
                next += 1
            }
            let outcomes = context.remover.removeGroup(
                group.flatMap { pick in
                    pick.names.map { ($0, FileIdentity(device: pick.device, inode: pick.inode), pick.rule) }
                })
            var offset = 0
            for pick in group {
                let pickOutcomes = outcomes[offset..<offset + pick.names.count]
                offset += pick.names.count
                if record(pick, zip(pick.names, pickOutcomes), into: &result) {
                    remaining -= min(pick.freesInDirectory, remaining)
                }
                if result.error != nil { break }
            }
        }
        return result
    }

    /// Notes what became of each name of one pick; true when all of them went (its bytes have
    /// left the directory). Stops at the first intent that could not be recorded.
    private func record(
        _ pick: EvictionPick, _ outcomes: some Sequence<([UInt8], DeletionOutcome)>, into result: inout CleanupResult
    ) -> Bool {
        var allGone = true
        var removedNames: [[UInt8]] = []
        for (path, outcome) in outcomes {
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
            result.removed.append(RemovedItem(path: path, freedBytes: freed, inode: pick.inode))
        }
        return allGone
    }

    static func reason(_ outcome: DeletionOutcome) -> String {
        switch outcome {
        case .removed: "removed"
        case .skipped(let reason): reason.description
        case .failed(let error): error.removalFailure
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
            removed.append(
                RemovedItem(
                    path: path, freedBytes: freed ?? removal.freedBytes,
                    inode: removal.entries.first { $0.path == path }?.identity.inode))
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
