/// The largest entries directly in one directory, files beside subdirectories, as a live view
/// lists them (ncdu, gdu): at a cost bounded by the entries asked for, never by the tree.
extension TallyTree {
    /// One name directly in a directory: a subdirectory with its subtree's tally, or a file
    /// (any non-directory) with its inode's sizes.
    package struct Child: Sendable, Equatable {
        package var name: [UInt8]
        package var isDirectory: Bool
        /// A subdirectory's subtree totals; a file's own sizes, with `files` 1 and `dirs` 0.
        package var tally: Tally

        package init(name: [UInt8], isDirectory: Bool, tally: Tally) {
            self.name = name
            self.isDirectory = isDirectory
            self.tally = tally
        }

        /// The list's order: most allocated first, then most apparent, then by name bytes, so
        /// equal sizes come in the same order on every frame.
        package static func largestFirst(_ lhs: Child, _ rhs: Child) -> Bool {
            if lhs.tally.allocated != rhs.tally.allocated { return lhs.tally.allocated > rhs.tally.allocated }
            if lhs.tally.apparent != rhs.tally.apparent { return lhs.tally.apparent > rhs.tally.apparent }
            return lhs.name.lexicographicallyPrecedes(rhs.name)
        }
    }

    /// Which names ``largestChildren(of:limit:including:)`` looks at.
    package enum ChildKinds: Sendable {
        case all, files, directories
    }

    /// The `limit` largest names directly in `directory`, largest first (see
    /// ``Child/largestFirst(_:_:)``).
    ///
    /// One pass over the directory's own entries (its subdirectory and file lists, nothing
    /// below them) through a heap that never holds more than `limit`: O(n log limit) time for
    /// the n names of that one directory and O(limit) memory, with a name copied only for the
    /// entries kept. A file's size is its inode's, as `du` of that one name reports it (a
    /// hard-linked file shows its whole size under each of its names).
    package func largestChildren(of directory: DirectoryID, limit: Int, including kinds: ChildKinds = .all) -> [Child] {
        guard limit > 0 else { return [] }
        var kept = BoundedHeap(limit: limit)
        if kinds != .files {
            var child = directories[Int(directory.rawValue)].firstChild
            while child != noRecord {
                kept.offer(.directory(child), tally(of: DirectoryID(rawValue: child)), tree: self)
                child = directories[Int(child)].nextSibling
            }
        }
        if kinds != .directories {
            var file = directories[Int(directory.rawValue)].firstFile
            while file != noRecord {
                let usage = usage(of: FileID(rawValue: file))
                kept.offer(.file(file), Tally(usage: usage, files: 1, dirs: 0), tree: self)
                file = files[Int(file)].nextSibling
            }
        }
        return kept.entries.map { entry in
            switch entry.record {
            case .directory(let index):
                Child(name: Array(name(of: DirectoryID(rawValue: index))), isDirectory: true, tally: entry.tally)
            case .file(let index):
                Child(name: Array(name(of: FileID(rawValue: index))), isDirectory: false, tally: entry.tally)
            }
        }
        .sorted(by: Child.largestFirst)
    }

    /// How many names are directly in `directory` (subdirectories and files): one pass over
    /// its own entries, as ``largestChildren(of:limit:including:)`` makes.
    package func childCount(of directory: DirectoryID) -> Int {
        var count = 0
        var child = directories[Int(directory.rawValue)].firstChild
        while child != noRecord {
            count += 1
            child = directories[Int(child)].nextSibling
        }
        var file = directories[Int(directory.rawValue)].firstFile
        while file != noRecord {
            count += 1
            file = files[Int(file)].nextSibling
        }
        return count
    }

    fileprivate func name(of record: BoundedHeap.Record) -> ArraySlice<UInt8> {
        switch record {
        case .directory(let index): name(of: DirectoryID(rawValue: index))
        case .file(let index): name(of: FileID(rawValue: index))
        }
    }
}

/// A min-heap of at most `limit` entries: the smallest kept is at the top, so a larger
/// newcomer replaces it in O(log limit) and a smaller one costs one comparison.
private struct BoundedHeap {
    enum Record {
        case directory(UInt32)
        case file(UInt32)
    }

    struct Entry {
        var record: Record
        var tally: Tally
    }

    let limit: Int
    private(set) var entries: [Entry] = []

    init(limit: Int) { self.limit = limit }

    mutating func offer(_ record: Record, _ tally: Tally, tree: TallyTree) {
        let entry = Entry(record: record, tally: tally)
        if entries.count < limit {
            entries.append(entry)
            siftUp(entries.count - 1, tree)
        } else if Self.before(entry, entries[0], tree) {
            entries[0] = entry
            siftDown(0, tree)
        }
    }

    /// True when `lhs` ranks before (is larger than) `rhs` in the list's order.
    private static func before(_ lhs: Entry, _ rhs: Entry, _ tree: TallyTree) -> Bool {
        if lhs.tally.allocated != rhs.tally.allocated { return lhs.tally.allocated > rhs.tally.allocated }
        if lhs.tally.apparent != rhs.tally.apparent { return lhs.tally.apparent > rhs.tally.apparent }
        // Names are compared only between equal sizes: rare but for empty files.
        return tree.name(of: lhs.record).lexicographicallyPrecedes(tree.name(of: rhs.record))
    }

    /// The heap keeps the entry that ranks last at the top.
    private func isAbove(_ index: Int, _ other: Int, _ tree: TallyTree) -> Bool {
        Self.before(entries[other], entries[index], tree)
    }

    private mutating func siftUp(_ start: Int, _ tree: TallyTree) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard isAbove(child, parent, tree) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int, _ tree: TallyTree) {
        var parent = start
        while true {
            var top = parent
            let left = 2 * parent + 1
            if left < entries.count && isAbove(left, top, tree) { top = left }
            if left + 1 < entries.count && isAbove(left + 1, top, tree) { top = left + 1 }
            if top == parent { return }
            entries.swapAt(parent, top)
            parent = top
        }
    }
}
