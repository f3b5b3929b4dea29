import QuotaWatchCore

/// What a group is keyed by: a cache's directory, or a user-file kind.
package struct CleanGroupKey: Sendable, Hashable {
    package var group: [UInt8]
    package var kind: UserFileKind?

    package init(_ item: CleanItem) {
        group = item.classification.group
        kind = item.classification.kind
    }

    /// The group's short name: the business directory's last component, the kind's name.
    package var name: [UInt8] {
        if let kind { return Array(kind.rawValue.utf8) }
        return group.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? group
    }

    func precedes(_ other: CleanGroupKey) -> Bool {
        if let kind, let otherKind = other.kind, kind != otherKind { return kind < otherKind }
        return group.lexicographicallyPrecedes(other.group)
    }
}

package struct CleanGroupSummary: Sendable, Hashable {
    package var key: CleanGroupKey
    /// Largest first.
    package var items: [CleanItem]
    package var totals: CleanTotals { CleanTotals(items) }
}

package struct CleanCategorySummary: Sendable, Hashable {
    package var category: CleanCategory
    package var totals: CleanTotals
    /// For caches (by business directory), dyld (by entry) and user files (by kind).
    package var groups: [CleanGroupSummary]
    /// Every item, in listing order.
    package var items: [CleanItem]
}
