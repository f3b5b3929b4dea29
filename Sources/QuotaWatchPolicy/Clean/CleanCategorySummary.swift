import QuotaWatchCore

/// What a group is keyed by: a cache's directory, or a user-file kind.
public struct CleanGroupKey: Sendable, Hashable {
    public var group: [UInt8]
    public var kind: UserFileKind?

    public init(_ item: CleanItem) {
        group = item.classification.group
        kind = item.classification.kind
    }

    /// The group's short name: the business directory's last component, the kind's name.
    public var name: [UInt8] {
        if let kind { return Array(kind.rawValue.utf8) }
        return group.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? group
    }

    func precedes(_ other: CleanGroupKey) -> Bool {
        if let kind, let otherKind = other.kind, kind != otherKind { return kind < otherKind }
        return group.lexicographicallyPrecedes(other.group)
    }
}

public struct CleanGroupSummary: Sendable, Hashable {
    public var key: CleanGroupKey
    /// Largest first.
    public var items: [CleanItem]
    public var totals: CleanTotals { CleanTotals(items) }
}

public struct CleanCategorySummary: Sendable, Hashable {
    public var category: CleanCategory
    public var totals: CleanTotals
    /// For caches (by business directory), dyld (by entry) and user files (by kind).
    public var groups: [CleanGroupSummary]
    /// Every item, in listing order.
    public var items: [CleanItem]
}
