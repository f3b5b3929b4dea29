struct DirectoryRecord {
    /// Written only through ``TallyTree/adjustTally(of:by:)``, the one path by which any
    /// directory's totals change, so that a directory carrying a rule is never missed.
    private(set) var tally: Tally
    var own: Usage
    var device: UInt64
    var inode: UInt64
    var parent: UInt32
    var nameOffset: UInt32
    var isLive: Bool
    /// Listed in the tree's `dirtyDirectories` since the last drain (kept in padding).
    var isDirty = false
    var firstFile: UInt32 = noRecord
    var firstChild: UInt32 = noRecord
    var nextSibling: UInt32 = noRecord
    var previousSibling: UInt32 = noRecord
    /// Hard-linked names in this subtree; zero lets subtree moves skip the hard-link table.
    var linkedNames: UInt32 = 0
    /// Owner-defined: the engine's watch descriptor or poll state.
    var watch: Int32 = -1
    /// Owner-defined: set for a directory that carries a rule, whose tally changes are
    /// reported by ``TallyTree/drainDirtyDirectories()``.
    var ruleSlot: UInt32 = noRecord

    /// Applies a change to the totals. True when the directory carries a rule slot and has
    /// just become dirty, so the caller lists it.
    mutating func apply(_ delta: TallyDelta) -> Bool {
        tally.apply(delta)
        guard ruleSlot != noRecord, !isDirty else { return false }
        isDirty = true
        return true
    }
}
