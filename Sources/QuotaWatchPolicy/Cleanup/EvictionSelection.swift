import QuotaWatchCore

/// Which end of the age order eviction starts from.
package enum EvictionOrder: String, Sendable, Hashable, CaseIterable {
    /// Oldest modification first: the default.
    case oldestModified = "mtime"
    /// Least recently used first: the latest of modification and the last open the engine saw.
    case leastRecentlyUsed = "lru"
}

/// One inode chosen for eviction: all its names inside the directory, and what removing them
/// drops from the directory's tally.
package struct EvictionPick: Sendable, Hashable {
    package var names: [[UInt8]]
    package var device: UInt64
    package var inode: UInt64
    /// What the directory's du total loses once every name here is gone.
    package var freesInDirectory: UInt64
    /// Whether the inode has names outside the directory, so the disk gets nothing back.
    package var keepsOtherNames: Bool
    /// The rule of the inode's first name in the candidate list, for the audit log.
    package var rule: String
}

/// Chooses what to evict from a directory over its quota until it is under its target.
///
/// "What a deletion frees is what du would drop": du counts an inode once per directory, so a
/// hard-linked file frees the directory's total only when all its names inside it go. The
/// unit of eviction is therefore an inode with all its names in the directory. Inodes whose
/// every name lies inside come first (they also give the disk its blocks back); inodes that
/// keep a name elsewhere come after all of them. Within each group the order is the age order.
package enum EvictionSelection {
    package static func select(
        _ candidates: [CleanupCandidate], used: UInt64, target: UInt64, order: EvictionOrder = .oldestModified,
        size: SizeKind = .allocated, nowNanoseconds: Int64 = .max
    ) -> [EvictionPick] {
        guard used > target else { return [] }
        // One pass to group the names of each inode, one sort, one pass to pick: O(n log n) in
        // the number of candidates. A cleaner asks once for the whole order (target 0) and
        // walks it, so nothing here is ever redone per pick.
        var units: [Identity: CleanupCandidate] = [:]
        var names: [Identity: Set<[UInt8]>] = [:]
        var rules: [Identity: String] = [:]
        for candidate in candidates where !candidate.isDirectory {
            let identity = Identity(device: candidate.device, inode: candidate.inode)
            if let known = units[identity] {
                // A second name of the inode: from now on its names are kept as a set.
                if names[identity] == nil { names[identity] = [known.path] }
                names[identity]!.formUnion(candidate.namesInDirectory + [candidate.path])
                units[identity] = merged(known, candidate)
            } else {
                units[identity] = candidate
                rules[identity] = candidate.rule
                // Most files have one name: no set for them.
                if candidate.namesInDirectory != [candidate.path] {
                    names[identity] = Set(candidate.namesInDirectory + [candidate.path])
                }
            }
        }
        let ordered = units.values.sorted { lhs, rhs in
            if lhs.allNamesInDirectory != rhs.allNamesInDirectory { return lhs.allNamesInDirectory }
            let left = order == .oldestModified ? lhs.modifiedNanoseconds : lhs.lastUseNanoseconds(now: nowNanoseconds)
            let right =
                order == .oldestModified ? rhs.modifiedNanoseconds : rhs.lastUseNanoseconds(now: nowNanoseconds)
            if left != right { return left < right }
            // relatime keeps atime within a day of the truth: good enough to break a tie.
            if order == .leastRecentlyUsed, lhs.accessedNanoseconds != rhs.accessedNanoseconds {
                return lhs.accessedNanoseconds < rhs.accessedNanoseconds
            }
            return lhs.path.lexicographicallyPrecedes(rhs.path)
        }
        var remaining = used
        var picks: [EvictionPick] = []
        for unit in ordered {
            guard remaining > target else { break }
            let identity = Identity(device: unit.device, inode: unit.inode)
            let bytes = unit.bytes(size)
            picks.append(
                EvictionPick(
                    names: names[identity].map { $0.sorted { $0.lexicographicallyPrecedes($1) } } ?? [unit.path],
                    device: unit.device, inode: unit.inode, freesInDirectory: bytes,
                    keepsOtherNames: !unit.allNamesInDirectory, rule: rules[identity] ?? unit.rule))
            remaining -= min(bytes, remaining)
        }
        return picks
    }

    /// `expire`: the files among `candidates` not used for more than `age`, least recently used
    /// first. As systemd-tmpfiles does, a file's last use is the newest of its atime, mtime and
    /// ctime (``FileActivity/lastUse(modified:changed:accessed:now:)``), so a file read
    /// yesterday, or extracted by tar with an old mtime a minute ago, has not expired.
    package static func olderThan(
        _ candidates: [CleanupCandidate], age: Duration, nowNanoseconds: Int64
    ) -> [CleanupCandidate] {
        func lastUse(_ candidate: CleanupCandidate) -> Int64 {
            FileActivity.lastUse(
                modified: candidate.modifiedNanoseconds, changed: candidate.changedNanoseconds,
                accessed: candidate.accessedNanoseconds, now: nowNanoseconds)
        }
        return candidates.map { (candidate: $0, lastUse: lastUse($0)) }
            .filter { FileActivity.isIdle(since: $0.lastUse, longerThan: age, now: nowNanoseconds) }
            .sorted {
                $0.lastUse != $1.lastUse
                    ? $0.lastUse < $1.lastUse : $0.candidate.path.lexicographicallyPrecedes($1.candidate.path)
            }
            .map(\.candidate)
    }

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Two names of one inode: the latest open of either counts.
    private static func merged(_ lhs: CleanupCandidate, _ rhs: CleanupCandidate) -> CleanupCandidate {
        var merged = lhs.path.lexicographicallyPrecedes(rhs.path) ? lhs : rhs
        let opens = [lhs.lastOpenNanoseconds, rhs.lastOpenNanoseconds].compactMap { $0 }
        merged.lastOpenNanoseconds = opens.max()
        merged.namesInDirectory = Array(Set(lhs.namesInDirectory + rhs.namesInDirectory))
        return merged
    }
}
