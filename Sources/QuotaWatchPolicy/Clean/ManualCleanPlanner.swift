import QuotaWatchCore

/// The storage page's decisions on a list of items, all pure: what is listed (and what is
/// held back, and why), how it is grouped, and what a selection deletes. The CLI and the
/// daemon call the same functions, so `--dry-run` lists exactly what a real run removes.
///
/// The manual path: what a person picks on `quotawatch clean`. The automatic path, the
/// cleaners a trigger runs, is planned by the engine's `CleanupPlanner` from the config.
package enum ManualCleanPlanner {
    /// Splits `items` into those on offer and those held back: a leftover still open for
    /// writing (`isOpenForWriting`, asked only for leftovers) and the newest entry of each
    /// dyld cache directory (only the stale ones are offered).
    package static func offer(
        _ items: [CleanItem], isOpenForWriting: (CleanItem) -> Bool
    ) -> (offered: [CleanItem], held: [(item: CleanItem, hold: CleanHold)]) {
        // The newest entry per dyld directory, by the latest mtime of its files.
        var newestEntry: [[UInt8]: (group: [UInt8], modified: Int64)] = [:]
        for item in items where item.category == .dyld {
            let group = item.classification.group
            let directory = group.lastIndex(of: UInt8(ascii: "/")).map { Array(group[..<$0]) } ?? []
            if let known = newestEntry[directory],
                known.modified > item.modifiedNanoseconds
                    || (known.modified == item.modifiedNanoseconds && known.group.lexicographicallyPrecedes(group))
            {
                continue
            }
            newestEntry[directory] = (group, item.modifiedNanoseconds)
        }
        let keptEntries = Set(newestEntry.values.map(\.group))
        var offered: [CleanItem] = []
        var held: [(CleanItem, CleanHold)] = []
        for item in items {
            if item.category == .dyld, keptEntries.contains(item.classification.group) {
                held.append((item, .newestDyldCache))
            } else if item.category == .leftovers, isOpenForWriting(item) {
                held.append((item, .openForWriting))
            } else {
                offered.append(item)
            }
        }
        return (offered, held)
    }

    /// What `selection` deletes among the offered items, in listing order.
    package static func select(
        _ offered: [CleanItem], _ selection: CleanSelection, nowNanoseconds: Int64
    ) -> [CleanItem] {
        sortedForListing(offered.filter { selection.selects($0, nowNanoseconds: nowNanoseconds) })
    }

    /// Category order, then group (largest group first), then largest file first, then path.
    package static func sortedForListing(_ items: [CleanItem]) -> [CleanItem] {
        // Each item's group key and its group's size, computed once (not per comparison).
        let keys = items.map(CleanGroupKey.init)
        var groupBytes: [CleanGroupKey: UInt64] = [:]
        for (item, key) in zip(items, keys) { groupBytes[key, default: 0] += item.allocatedBytes }
        let sizes = keys.map { groupBytes[$0]! }
        let order = items.indices.sorted { leftIndex, rightIndex in
            let (left, right) = (items[leftIndex], items[rightIndex])
            if left.category != right.category { return left.category < right.category }
            let (leftKey, rightKey) = (keys[leftIndex], keys[rightIndex])
            if leftKey != rightKey {
                let (leftBytes, rightBytes) = (sizes[leftIndex], sizes[rightIndex])
                if leftBytes != rightBytes { return leftBytes > rightBytes }
                return leftKey.precedes(rightKey)
            }
            if left.allocatedBytes != right.allocatedBytes { return left.allocatedBytes > right.allocatedBytes }
            return left.path.lexicographicallyPrecedes(right.path)
        }
        return order.map { items[$0] }
    }

    /// The page: one entry per category (all of them, empty ones too), each with its groups
    /// (cache businesses, dyld entries, user-file kinds), largest first.
    package static func page(_ offered: [CleanItem]) -> [CleanCategorySummary] {
        let sorted = sortedForListing(offered)
        return CleanCategory.allCases.map { category in
            let items = sorted.filter { $0.category == category }
            var groups: [CleanGroupSummary] = []
            var index: [CleanGroupKey: Int] = [:]
            for item in items where category == .caches || category == .dyld || category == .userFiles {
                let key = CleanGroupKey(item)
                if let at = index[key] {
                    groups[at].items.append(item)
                } else {
                    index[key] = groups.count
                    groups.append(CleanGroupSummary(key: key, items: [item]))
                }
            }
            return CleanCategorySummary(category: category, totals: CleanTotals(items), groups: groups, items: items)
        }
    }
}
