/// Read-only queries for reports: what a status request selects, at a cost that grows with
/// what it returns, not with the size of the tree.
extension TallyTree {
    /// The directory at `components` below the root, or nil when a component is missing or
    /// names a file.
    package func directory(atComponents components: [ArraySlice<UInt8>]) -> DirectoryID? {
        var current = root
        for component in components {
            guard case .directory(let next)? = entry(named: component, in: current) else { return nil }
            current = next
        }
        return current
    }

    /// The directories `selection` asks for, in tree order (parents before children, siblings
    /// in byte order), or nil when its subtree is not a directory of the tree.
    ///
    /// Without `top` this costs the rows returned plus sorting the children of each directory
    /// they expand. With `top` it is a best-first walk from the subtree: no directory holds
    /// more than its parent (its subtree is part of the parent's), so the largest ones are
    /// found by expanding only the directories taken, never the whole tree.
    package func rows(_ selection: TreeSelection) -> [DirectoryRow]? {
        guard let start = directory(atComponents: selection.components) else { return nil }
        if let top = selection.top { return largest(top, below: start, depth: selection.depth) }
        var rows: [DirectoryRow] = []
        var stack: [(DirectoryID, [UInt8], Int)] = [(start, selection.subtree, 0)]
        while let (directory, path, depth) = stack.popLast() {
            rows.append(DirectoryRow(path: path, tally: tally(of: directory)))
            if let limit = selection.depth, depth >= limit { continue }
            let children = subdirectories(of: directory).sorted {
                name(of: $0).lexicographicallyPrecedes(name(of: $1))
            }
            for child in children.reversed() { stack.append((child, childPath(path, child), depth + 1)) }
        }
        return rows
    }

    private func largest(_ count: Int, below start: DirectoryID, depth limit: Int?) -> [DirectoryRow] {
        var candidates = RowHeap()
        candidates.push(
            RowHeap.Entry(
                directory: start, row: DirectoryRow(path: relativePath(of: start), tally: tally(of: start)), depth: 0))
        var taken: [DirectoryRow] = []
        while taken.count < count, let next = candidates.pop() {
            taken.append(next.row)
            if let limit, next.depth >= limit { continue }
            for child in subdirectories(of: next.directory) {
                let row = DirectoryRow(path: childPath(next.row.path, child), tally: tally(of: child))
                candidates.push(RowHeap.Entry(directory: child, row: row, depth: next.depth + 1))
            }
        }
        return taken.sorted { DirectoryRow.treeOrder($0.path, $1.path) }
    }

    private func childPath(_ parent: [UInt8], _ child: DirectoryID) -> [UInt8] {
        var path = parent
        if !path.isEmpty { path.append(UInt8(ascii: "/")) }
        path.append(contentsOf: name(of: child))
        return path
    }
}

/// A binary max-heap of candidate rows: most allocated first, then most apparent, then tree
/// order, so that equal sizes are taken in the same order on every run.
private struct RowHeap {
    struct Entry {
        var directory: DirectoryID
        var row: DirectoryRow
        var depth: Int
    }

    private var entries: [Entry] = []

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            var best = parent
            for child in [2 * parent + 1, 2 * parent + 2]
            where child < entries.count && Self.before(entries[child], entries[best]) {
                best = child
            }
            if best == parent { break }
            entries.swapAt(parent, best)
            parent = best
        }
        return first
    }

    private static func before(_ lhs: Entry, _ rhs: Entry) -> Bool {
        if lhs.row.tally.allocated != rhs.row.tally.allocated {
            return lhs.row.tally.allocated > rhs.row.tally.allocated
        }
        if lhs.row.tally.apparent != rhs.row.tally.apparent { return lhs.row.tally.apparent > rhs.row.tally.apparent }
        return DirectoryRow.treeOrder(lhs.row.path, rhs.row.path)
    }
}
