import QuotaWatchCore
import QuotaWatchPolicy

/// Finding the rules of each directory: from its parent's ``RuleIndex/State`` and its name.
extension PolicyMonitor {
    /// Drops what left the tree, then places every added or renamed subtree, shallowest
    /// first so each parent is placed before its children.
    mutating func apply(_ changes: StructureChanges, to tree: inout TallyTree, at moment: Moment) {
        // Removed ids may have been reused since: forget first, then place what is there now.
        for directory in changes.removed { forget(directory) }
        let tops = changes.placed.filter { tree.contains($0) }.map { ($0, tree.depth(of: $0)) }
        for (top, _) in tops.sorted(by: { $0.1 < $1.1 }) { placeSubtree(top, in: &tree, at: moment) }
    }

    /// The directory left the tree (its id may come back as another directory).
    mutating func forget(_ directory: DirectoryID) {
        states.removeValue(forKey: directory)
        book.detach(directory)
    }

    /// Places `top` and, where globs may still match, everything below it.
    mutating func placeSubtree(_ top: DirectoryID, in tree: inout TallyTree, at moment: Moment) {
        var queue = [top]
        var index = 0
        while index < queue.count {
            let directory = queue[index]
            index += 1
            if place(directory, in: &tree, at: moment) { queue += tree.subdirectories(of: directory) }
        }
    }

    /// Places one directory from its parent's state. Returns whether its children need
    /// placing: some glob may match below it now, or did before (a rename out of a quota
    /// subtree leaves states and slots below to clear). A directory with no state, before
    /// or after, has none below it either.
    private mutating func place(_ directory: DirectoryID, in tree: inout TallyTree, at moment: Moment) -> Bool {
        let placement: RuleIndex.Placement?
        if directory == tree.root {
            placement = book.index.root
        } else if let parent = tree.parent(of: directory), let parentState = states[parent] {
            let name = tree.name(of: directory)
            // A name starting with NUL is a move's parking place, not a real name: nothing there
            // matches until the move ends.
            placement = name.first == 0 ? nil : book.index.child(of: parentState, named: name)
        } else {
            placement = nil
        }
        let hadState = states[directory] != nil
        if let placement, !placement.state.isDead {
            states[directory] = placement.state
        } else {
            states.removeValue(forKey: directory)
        }
        let rules = placement?.matched ?? []
        if rules.isEmpty {
            if tree.ruleSlot(of: directory) != nil {
                tree.setRuleSlot(nil, of: directory)
                book.detach(directory)
            }
        } else {
            tree.setRuleSlot(0, of: directory)
            book.attach(directory, path: tree.relativePath(of: directory), rules: rules, at: moment)
            attachedSinceEvaluation.append(directory)
        }
        return hadState || states[directory] != nil
    }
}
